import { App, type Receiver } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { RequestRouter } from '../../src/app/request-router.ts';
import { ControlRouter, type UnknownControlAnswers } from '../../src/app/shared/controls/control-registry.ts';
import { SearchIds } from '../../src/app/shared/ids.ts';

/** A Bolt app fed bodies by hand: no HTTP, no Slack. */
function boltApp(): App {
  const receiver: Receiver = {
    init: () => undefined,
    start: async () => undefined,
    stop: async () => undefined,
  };
  return new App({
    receiver,
    authorize: async () => ({ botToken: 'xoxb-test', botId: 'B0BOT', botUserId: 'U0BOT' }),
  });
}

async function send(app: App, body: Record<string, unknown>): Promise<void> {
  await app.processEvent({ body, ack: async () => undefined });
}

/** Records which listener answered, and with which `respond`. */
function setUp(respondAt?: (url: string) => (message: string | object) => Promise<void>) {
  const heard: string[] = [];
  const responds: unknown[] = [];
  const app = boltApp();
  const controls = new ControlRouter();
  const router = new RequestRouter(respondAt);
  router.registrar.command('/tender', async ({ respond }) => {
    heard.push('command /tender');
    responds.push(respond);
  });
  router.registrar.event('app_home_opened', async () => {
    heard.push('event app_home_opened');
  });
  controls.action(SearchIds.next, async ({ respond }) => {
    heard.push('action next');
    responds.push(respond);
  });
  const unknown = {
    action: async () => {
      heard.push('unknown action');
    },
    view: async () => {
      heard.push('unknown view');
    },
    shortcut: async () => {
      heard.push('unknown shortcut');
    },
    options: async () => {
      heard.push('unknown options');
    },
  } as unknown as UnknownControlAnswers;
  // Bolt's own listener for what the router does not route (as a Workflow Builder step's run is).
  app.event('reaction_added', async () => {
    heard.push('bolt reaction_added');
  });
  // Every row of CONTROLS needs a listener before attach; the test attaches the router alone.
  router.attach(app, controls, unknown);
  return { app, heard, responds };
}

const TEAM = { team_id: 'T0TEAM', api_app_id: 'A0APP' };

describe('the request router', () => {
  it('hands a command, a control (known, numbered or unknown) and an event to their listeners by id', async () => {
    const { app, heard } = setUp();
    await send(app, { ...TEAM, command: '/tender', text: 'search', user_id: 'U0A', channel_id: 'C0A' });
    const click = (actionId: string) => ({
      type: 'block_actions',
      team: { id: 'T0TEAM' },
      user: { id: 'U0A' },
      api_app_id: 'A0APP',
      actions: [{ type: 'button', action_id: actionId, block_id: 'b', value: '{}', action_ts: '1' }],
    });
    await send(app, click(SearchIds.next));
    await send(app, click('an-id-of-an-older-version'));
    await send(app, {
      type: 'event_callback',
      ...TEAM,
      event: { type: 'app_home_opened', user: 'U0A', tab: 'home' },
    });
    expect(heard).toEqual(['command /tender', 'action next', 'unknown action', 'event app_home_opened']);
  });

  it('leaves what it does not route to Bolt’s listeners', async () => {
    const { app, heard } = setUp();
    await send(app, {
      type: 'event_callback',
      ...TEAM,
      event: { type: 'reaction_added', user: 'U0A', reaction: 'eyes', item: { type: 'message' } },
    });
    await send(app, { ...TEAM, command: '/other', text: '', user_id: 'U0A' });
    expect(heard).toEqual(['bolt reaction_added']);
  });

  it('answers at the response_url through the respond it was given', async () => {
    const posted: unknown[] = [];
    const { app, responds } = setUp((url) => async (message) => {
      posted.push({ url, message });
    });
    await send(app, { ...TEAM, command: '/tender', text: '', user_id: 'U0A', response_url: 'https://x/r/1' });
    const respond = responds[0] as (message: object) => Promise<void>;
    await respond({ text: 'found' });
    expect(posted).toEqual([{ url: 'https://x/r/1', message: { text: 'found' } }]);
  });

  it('gives a click without a response_url (the Home tab, a modal) a respond all the same', async () => {
    const { app, responds } = setUp(() => async () => undefined);
    await send(app, {
      type: 'block_actions',
      team: { id: 'T0TEAM' },
      user: { id: 'U0A' },
      api_app_id: 'A0APP',
      container: { type: 'view', view_id: 'V0HOME' },
      actions: [{ type: 'button', action_id: SearchIds.next, block_id: 'b', value: '{}', action_ts: '1' }],
    });
    // Bolt itself gives none there, though its types promise one.
    expect(responds).toHaveLength(1);
    expect(typeof responds[0]).toBe('function');
  });

  it('refuses a second listener for one command or event', () => {
    const router = new RequestRouter();
    router.registrar.event('app_home_opened', async () => undefined);
    expect(() => router.registrar.event('app_home_opened', async () => undefined)).toThrow(
      'has a listener already',
    );
  });
});
