import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { addWorkbenchRoutes } from '../../src/workbench/workbench-routes.ts';
import { SECOND_WORKSPACE } from '../../src/workbench/workspaces.ts';
import { StandInApp } from '../fake-slack/stand-in-app.ts';

/**
 * What the workbench answers itself, as Slack does: `/invite @Tenderbot` and `/remove`, a command
 * of an app not installed in the workspace, an address naming a workspace no longer here, and
 * Slack's link back into a workspace. Through the page's own routes, with a stand-in app.
 */
let slack: FakeSlack;
let origin: string;
const app = new StandInApp('secret');

beforeAll(async () => {
  slack = new FakeSlack({
    signingSecret: 'secret',
    botToken: 'xoxb-test',
    appUrl: await app.start(),
    postsPerSecondPerChannel: 0,
    oauth: { clientId: '1.2', clientSecret: 'client-secret' },
  });
  slack.addWorkspace(SECOND_WORKSPACE);
  addWorkbenchRoutes(slack);
  await slack.start(0);
  origin = slack.apiUrl.replace(/\/api\/$/, '');
});
beforeEach(() => {
  app.received.length = 0;
});
afterAll(async () => {
  await slack.stop();
  await app.stop();
});

async function fromPage(path: string, body: Record<string, unknown>) {
  const answer = await request(`${origin}${path}`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ user: 'U0ADMIN', ...body }),
  });
  return { status: answer.statusCode, json: (await answer.body.json()) as Record<string, unknown> };
}

const type = (text: string, channel = 'C0BIDS', user = 'U0ADMIN', team = 'T0TENDER') =>
  fromPage('/workbench/command', { channel, text, user, team });

/** What Slackbot said last to `user` in `channel`. */
const slackbotSaid = (channel = 'C0BIDS', user = 'U0ADMIN', team = 'T0TENDER') =>
  slack
    .team(team)
    .messagesIn(channel, user)
    .filter((message) => message.authorId === 'USLACKBOT')
    .at(-1)?.text;

async function state(query: string) {
  const answer = await request(`${origin}/workbench/state?${query}`);
  return { status: answer.statusCode, json: (await answer.body.json()) as Record<string, unknown> };
}

describe('/invite and /remove in the workbench', () => {
  it('/remove @Tenderbot takes the app out of the channel (channel_left); /invite @Tenderbot brings it back (member_joined_channel)', async () => {
    expect(slack.isAppIn('C0BIDS')).toBe(true);
    expect((await type('/remove @Tenderbot')).status).toBe(200);
    expect(slack.isAppIn('C0BIDS')).toBe(false);
    expect(app.events('channel_left')).toEqual([
      expect.objectContaining({ channel: 'C0BIDS', actor_id: 'U0ADMIN' }),
    ]);
    expect(slackbotSaid()).toBe('You removed Tenderbot from <#C0BIDS>.');

    expect((await type('/invite @Tenderbot')).status).toBe(200);
    expect(slack.isAppIn('C0BIDS')).toBe(true);
    expect(app.events('member_joined_channel')).toEqual([
      expect.objectContaining({ channel: 'C0BIDS', user: 'U0BOT', inviter: 'U0ADMIN' }),
    ]);
    expect(slackbotSaid()).toBe('You added Tenderbot to <#C0BIDS>.');
    // The app never hears of Slack's own commands.
    expect(app.received.filter((item) => item.json?.command)).toEqual([]);
  });

  it('takes the name whatever its case, as a mention, and says when there is nothing to do', async () => {
    await type('/Invite <@U0BOT>');
    expect(slackbotSaid()).toBe('Tenderbot is already in <#C0BIDS>.');
    await type('/kick @TENDERBOT');
    expect(slack.isAppIn('C0BIDS')).toBe(false);
    await type('/remove @tenderbot');
    expect(slackbotSaid()).toBe('Tenderbot is not in <#C0BIDS>.');
    await type('/invite @tenderbot');
    expect(slack.isAppIn('C0BIDS')).toBe(true);
  });

  it('invites and removes people too', async () => {
    await type('/remove @max');
    expect(slack.isMember('C0BIDS', 'U0MEMBER')).toBe(false);
    expect(slackbotSaid()).toBe('You removed <@U0MEMBER> from <#C0BIDS>.');
    await type('/invite @max');
    expect(slack.isMember('C0BIDS', 'U0MEMBER')).toBe(true);
  });

  it('refuses a guest, a direct message and an unknown name, with a sentence each, changing nothing', async () => {
    await type('/remove @Tenderbot', 'C0BIDS', 'U0GUEST');
    expect(slackbotSaid('C0BIDS', 'U0GUEST')).toMatch(/^Guests can’t remove anyone here/);
    expect(slack.isAppIn('C0BIDS')).toBe(true);
    await type('/invite @Tenderbot', 'DU0ADMIN');
    expect(slackbotSaid('DU0ADMIN')).toMatch(/works in a channel, not in a direct message/);
    await type('/invite @<!channel>');
    expect(slackbotSaid()).toBe('No one in this workspace is called `@&lt;!channel&gt;`.');
    await type('/remove');
    expect(slackbotSaid()).toBe('Name who to remove, for example `/remove @Tenderbot`.');
    expect(app.events()).toEqual([]);
  });
});

describe('a workspace where Tenderbot is not installed yet', () => {
  it('answers its command with guidance (no warning sign, no reference), and the app hears nothing', async () => {
    await type('/tender help', 'C1GENERAL', 'U1ADMIN', 'T0SECOND');
    const said = slackbotSaid('C1GENERAL', 'U1ADMIN', 'T0SECOND') ?? '';
    expect(said).toContain('Tenderbot is not installed in this workspace yet');
    expect(said).toContain('Add Tenderbot to this workspace');
    expect(said).not.toMatch(/warning|⚠|reference/i);
    expect(app.received).toEqual([]);
    await type('/invite @Tenderbot', 'C1GENERAL', 'U1ADMIN', 'T0SECOND');
    expect(slackbotSaid('C1GENERAL', 'U1ADMIN', 'T0SECOND')).toMatch(
      /^Tenderbot is not installed in this workspace yet/,
    );
  });
});

describe('the page’s first look', () => {
  it('opens #general, where Tenderbot says hello, when no channel is asked for', async () => {
    expect((await state('user=U0ADMIN')).json.channel).toBe('C0GENERAL');
    expect((await state('team=T0SECOND&user=U1ADMIN')).json.channel).toBe('C1GENERAL');
    expect((await state('user=U0ADMIN&channel=C0BIDS')).json.channel).toBe('C0BIDS');
  });

  it('shows the first workspace for an address naming one no longer here, but never acts in it', async () => {
    const stale = await state('team=T0GONE&user=U0ADMIN');
    expect(stale.status).toBe(200);
    expect(stale.json.team).toEqual({ id: 'T0TENDER', name: 'Tenderbot Fake' });
    const acted = await fromPage('/workbench/command', { team: 'T0GONE', channel: 'C0BIDS', text: 'hello' });
    expect(acted).toEqual({ status: 400, json: { error: 'unknown workspace' } });
  });

  it('tells Slack’s install page which workspace the person is in', async () => {
    await state('team=T0SECOND&user=U1ADMIN');
    const second = slack.team('T0SECOND').workspaceState.lastVisitedAt ?? 0;
    expect(second).toBeGreaterThanOrEqual(slack.workspaceState.lastVisitedAt ?? 0);
  });

  it('leads Slack’s link into a workspace (app_redirect) back to the workbench on that workspace', async () => {
    const answer = await request(`${origin}/app_redirect?app=A0TENDERBOT&team=T0SECOND`);
    const html = await answer.body.text();
    expect(answer.statusCode).toBe(200);
    expect(html).toContain('url=/?team=T0SECOND');
    expect(html).toContain('Open Second Bid Team in the workbench');
    expect(await (await request(`${origin}/app_redirect?team=T0GONE`)).body.text()).toContain(
      '/?team=T0TENDER',
    );
  });
});
