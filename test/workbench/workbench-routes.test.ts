import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import type { Browser, Page } from 'playwright-core';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import {
  addWorkbenchRoutes,
  manifestFeatures,
  slashCommandOf,
} from '../../src/workbench/workbench-routes.ts';
import { StandInApp } from '../fake-slack/stand-in-app.ts';
import { ARTIFACTS_DIR, launchChromium } from '../support/browser.ts';

// The page's API acts as whoever the body names, so only the page itself may call it.
let slack: FakeSlack;
let origin: string;
let web: WebClient;
const app = new StandInApp('secret');
const OPTIONS = [
  { text: { type: 'plain_text', text: 'Leeds City Council' }, value: 'buyer-leeds' },
  { text: { type: 'plain_text', text: 'Leeds Teaching Hospitals' }, value: 'buyer-lth' },
];

beforeAll(async () => {
  // No per-channel limit here: the tests post as the app faster than once a second.
  slack = new FakeSlack({
    signingSecret: 'secret',
    botToken: 'xoxb-test',
    appUrl: await app.start(),
    postsPerSecondPerChannel: 0,
    unfurlDomains: ['contractsfinder.service.gov.uk'],
  });
  addWorkbenchRoutes(slack);
  await slack.start(0);
  origin = slack.apiUrl.replace(/\/api\/$/, '');
  web = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});

beforeEach(() => {
  app.received.length = 0;
  app.answer = (received) => (received.json?.type === 'block_suggestion' ? { options: OPTIONS } : null);
});

afterAll(async () => {
  await slack.stop();
  await app.stop();
});

/** A plain message typed on the page: it needs no app behind the fake Slack, and leaves a trace. */
async function post(text: string, headers: Record<string, string>, body?: string) {
  const response = await request(`${origin}/workbench/command`, {
    method: 'POST',
    headers,
    body: body ?? JSON.stringify({ user: 'U0ADMIN', channel: 'C0BIDS', text }),
  });
  return { status: response.statusCode, json: (await response.body.json()) as { error?: string } };
}

const posted = (text: string) => slack.messagesIn('C0BIDS').filter((message) => message.text === text);

describe('the workbench API', () => {
  it('acts for its own page: same origin, JSON', async () => {
    const answer = await post('hello from the page', {
      origin,
      'content-type': 'application/json',
      'sec-fetch-site': 'same-origin',
    });
    expect(answer.status).toBe(200);
    expect(posted('hello from the page')).toHaveLength(1);
  });

  it('refuses a cross-site form post, even one whose text/plain body reads as JSON', async () => {
    const text = 'forged by a form';
    // <form enctype="text/plain"> with a field named `{"user":…,"x":"` and value `"}` sends this.
    const body = `${JSON.stringify({ user: 'U0ADMIN', channel: 'C0BIDS', text, x: '' }).slice(0, -2)}="}`;
    const answer = await post(
      text,
      { origin: 'http://evil.example', 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' },
      body,
    );
    expect(answer.status).toBe(403);
    expect(posted(text)).toEqual([]);
  });

  it('refuses JSON from another origin, another site of the same host, or with no origin at all', async () => {
    const attempts: Record<string, string>[] = [
      { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'http://localhost:1', 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
      {},
    ];
    for (const headers of attempts) {
      const answer = await post('forged', { ...headers, 'content-type': 'application/json' });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
    }
    expect(posted('forged')).toEqual([]);
  });

  it('refuses a same-origin request that is not JSON', async () => {
    const answer = await post('not json', { origin, 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
    expect(posted('not json')).toEqual([]);
  });

  it('refuses another host name pointed at it (DNS rebinding), for reads too', async () => {
    const state = await request(`${origin}/workbench/state?user=U0ADMIN`, {
      headers: { host: 'attacker.example' },
    });
    expect(state.statusCode).toBe(403);
    await state.body.dump();
    const answer = await post('rebound', {
      host: 'attacker.example',
      origin: 'http://attacker.example',
      'content-type': 'application/json',
    });
    expect(answer.status).toBe(403);
    expect(posted('rebound')).toEqual([]);
  });

  it('refuses cross-site reads, and serves its own page and an address typed in the browser', async () => {
    const read = (site: string) =>
      request(`${origin}/workbench/state?user=U0ADMIN`, { headers: { 'sec-fetch-site': site } });
    const crossSite = await read('cross-site');
    expect(crossSite.statusCode).toBe(403);
    await crossSite.body.dump();
    for (const site of ['same-origin', 'none']) {
      const allowed = await read(site);
      expect(allowed.statusCode, site).toBe(200);
      const state = (await allowed.body.json()) as { me: { id: string } };
      expect(state.me.id).toBe('U0ADMIN');
    }
  });

  it('answers a broken or mistyped body with 400, never a failure', async () => {
    const headers = { origin, 'content-type': 'application/json' };
    for (const body of ['{', 'null', '[]', '42', JSON.stringify({ user: 'U0ADMIN', text: 42 })]) {
      const answer = await post('', headers, body);
      expect(answer.status, body).toBe(400);
      expect(answer.json.error).toBeTruthy();
    }
  });
});

const SAME_ORIGIN = () => ({ origin, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' });

/** A call from the page itself. */
async function fromPage(path: string, body: Record<string, unknown>, headers = SAME_ORIGIN()) {
  const response = await request(`${origin}${path}`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ user: 'U0MEMBER', ...body }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the page's loose JSON.
  return { status: response.statusCode, json: (await response.body.json()) as any };
}

// biome-ignore lint/suspicious/noExplicitAny: the page's loose JSON.
async function stateOf(userId: string, channel: string): Promise<any> {
  const response = await request(`${origin}/workbench/state?user=${userId}&channel=${channel}`, {
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  return response.body.json();
}

describe('the routes for subscriptions and reach', () => {
  it('turns Slack’s per-channel posting limit on for the page, unless the fake Slack has one', async () => {
    const fresh = new FakeSlack({ signingSecret: 's', botToken: 'xoxb-x' });
    addWorkbenchRoutes(fresh);
    expect(fresh.postsPerSecondPerChannel).toBe(1);
    expect(slack.postsPerSecondPerChannel).toBe(0);
  });

  it('shows a message’s time and link previews but never its metadata, and the person’s DM with the app', async () => {
    const metadata = { event_type: 'tender_digest', event_payload: { secret: 'delivery-42' } };
    const posted = await web.chat.postMessage({ channel: 'C0GENERAL', text: 'Digest', metadata });
    const state = await stateOf('U0MEMBER', 'C0GENERAL');
    const shown = state.messages.find((message: { ts: string }) => message.ts === posted.ts);
    expect(shown.text).toBe('Digest');
    expect(JSON.stringify(state)).not.toContain('delivery-42');
    expect(state.dm).toBe('DU0MEMBER');
    expect(state.shortcuts.map((shortcut: { callback_id: string }) => shortcut.callback_id)).toEqual(
      expect.arrayContaining(['reach/search_tenders', 'reach/comment_on_message']),
    );
    expect(state.channels.find((channel: { id: string }) => channel.id === 'C0GENERAL')).toMatchObject({
      appIn: true,
      archived: false,
    });
    // Only one's own DM can be opened.
    expect((await stateOf('U0MEMBER', 'DU0ADMIN')).channel).toBe('C0GENERAL');
  });

  it('types in the person’s own DM with the app (a message event), never in someone else’s', async () => {
    expect(
      (await fromPage('/workbench/command', { channel: 'DU0MEMBER', text: 'cleaning tenders' })).status,
    ).toBe(200);
    await slack.settle();
    expect(app.events('message')).toEqual([
      expect.objectContaining({ channel: 'DU0MEMBER', channel_type: 'im', text: 'cleaning tenders' }),
    ]);
    expect((await fromPage('/workbench/command', { channel: 'DU0ADMIN', text: 'snooping' })).status).toBe(
      400,
    );
    expect(slack.messagesIn('DU0ADMIN')).toEqual([]);
    const opened = await fromPage('/workbench/messages-tab', {});
    expect(opened.status).toBe(200);
    expect(app.events('app_home_opened')).toEqual([
      expect.objectContaining({ tab: 'messages', user: 'U0MEMBER' }),
    ]);
  });

  it('sends link_shared for a link typed in a channel, and draws the preview the app gives', async () => {
    const url = 'https://www.contractsfinder.service.gov.uk/Notice/5a115892-0000-0000-0000-000000000000';
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: `see ${url}` });
    await slack.settle();
    const [event] = app.events('link_shared');
    expect(event.links).toEqual([{ domain: 'contractsfinder.service.gov.uk', url }]);
    // Stored as Slack stores what a person types: the link wrapped, `<` and `&` escaped.
    expect(slack.lastMessage('C0BIDS')?.text).toBe(`see <${url}>`);
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: 'a <!channel> & b' });
    expect(slack.lastMessage('C0BIDS')?.text).toBe('a &lt;!channel&gt; &amp; b');
    const button = {
      type: 'button' as const,
      action_id: 'tender/bookmark',
      text: { type: 'plain_text' as const, text: 'Bookmark' },
    };
    await web.chat.unfurl({
      channel: 'C0BIDS',
      ts: event.message_ts,
      unfurls: { [url]: { blocks: [{ type: 'actions' as const, elements: [button] }] } },
    });
    const shown = (await stateOf('U0MEMBER', 'C0BIDS')).messages.find(
      (message: { ts: string }) => message.ts === event.message_ts,
    );
    expect(shown.unfurls).toEqual([
      { url, blocks: [{ type: 'actions', elements: [button] }], text: null, title: null },
    ]);
    // A click on the preview's button reaches the app as a click in an app unfurl.
    await fromPage('/workbench/click', {
      channel: 'C0BIDS',
      ts: event.message_ts,
      actionId: 'tender/bookmark',
    });
    expect(app.received.at(-1)?.json).toMatchObject({
      type: 'block_actions',
      container: { type: 'message_attachment', is_app_unfurl: true, app_unfurl_url: url },
      actions: [{ action_id: 'tender/bookmark' }],
    });
  });

  it('runs the global and message shortcuts the manifest declares, and refuses others', async () => {
    expect((await fromPage('/workbench/shortcut', { callbackId: 'reach/search_tenders' })).status).toBe(200);
    expect(app.received.at(-1)?.json).toMatchObject({
      type: 'shortcut',
      callback_id: 'reach/search_tenders',
    });
    expect((await fromPage('/workbench/shortcut', { callbackId: 'made/up' })).status).toBe(400);
    const message = slack.postAsUser('U0ADMIN', 'C0BIDS', 'Shall we bid?');
    const answer = await fromPage('/workbench/message-shortcut', {
      channel: 'C0BIDS',
      ts: message.ts,
      callbackId: 'reach/comment_on_message',
    });
    expect(answer.status).toBe(200);
    expect(app.received.at(-1)?.json).toMatchObject({
      type: 'message_action',
      callback_id: 'reach/comment_on_message',
      message: { text: 'Shall we bid?' },
      user: { id: 'U0MEMBER' },
    });
    // The search shortcut is global, not a message shortcut.
    expect(
      (
        await fromPage('/workbench/message-shortcut', {
          channel: 'C0BIDS',
          ts: message.ts,
          callbackId: 'reach/search_tenders',
        })
      ).status,
    ).toBe(400);
  });

  it('asks the app for an external select’s options as the person types', async () => {
    await fromPage('/workbench/shortcut', { callbackId: 'reach/search_tenders' });
    const trigger = app.received.at(-1)?.json.trigger_id as string;
    const opened = await web.views.open({
      trigger_id: trigger,
      view: {
        type: 'modal',
        title: { type: 'plain_text', text: 'Search tenders' },
        submit: { type: 'plain_text', text: 'Search' },
        blocks: [
          {
            type: 'input',
            block_id: 'buyer',
            label: { type: 'plain_text', text: 'Buyer' },
            element: { type: 'external_select', action_id: 'reach/buyer_select' },
          },
        ],
      },
    });
    const viewId = opened.view?.id as string;
    const suggested = await fromPage('/workbench/suggest', {
      viewId,
      actionId: 'reach/buyer_select',
      value: 'leeds',
    });
    expect(suggested.json.options).toEqual(OPTIONS);
    await fromPage('/workbench/submit', { viewId, values: { 'reach/buyer_select': 'buyer-leeds' } });
    expect(
      app.received.at(-1)?.json.view.state.values.buyer['reach/buyer_select'].selected_option.value,
    ).toBe('buyer-leeds');
  });

  it('adds and removes the app (events to the app) and archives a channel', async () => {
    await fromPage('/workbench/channel', { channel: 'C0GENERAL', action: 'remove-app' });
    expect(slack.isAppIn('C0GENERAL')).toBe(false);
    await fromPage('/workbench/channel', { channel: 'C0GENERAL', action: 'add-app' });
    expect(app.events().map((event) => [event.type, event.actor_id ?? event.inviter])).toEqual([
      ['channel_left', 'U0MEMBER'],
      ['member_joined_channel', 'U0MEMBER'],
    ]);
    expect((await fromPage('/workbench/channel', { channel: 'C0GENERAL', action: 'explode' })).status).toBe(
      400,
    );
    await fromPage('/workbench/channel', { channel: 'C0GENERAL', action: 'archive' });
    expect((await stateOf('U0MEMBER', 'C0GENERAL')).channels[1].archived).toBe(true);
    await expect(web.chat.postMessage({ channel: 'C0GENERAL', text: 'x' })).rejects.toThrow(/is_archived/);
    expect((await fromPage('/workbench/command', { channel: 'C0GENERAL', text: 'hello?' })).status).toBe(409);
    await fromPage('/workbench/channel', { channel: 'C0GENERAL', action: 'unarchive' });
    expect(slack.isArchived('C0GENERAL')).toBe(false);
  });

  it('keeps the same-origin guard on every new route', async () => {
    const routes: [string, Record<string, unknown>][] = [
      ['/workbench/shortcut', { callbackId: 'reach/search_tenders' }],
      [
        '/workbench/message-shortcut',
        { channel: 'C0BIDS', ts: '1.1', callbackId: 'reach/comment_on_message' },
      ],
      ['/workbench/suggest', { viewId: 'V1', actionId: 'a', value: 'abc' }],
      ['/workbench/channel', { channel: 'C0BIDS', action: 'archive' }],
      ['/workbench/messages-tab', {}],
    ];
    for (const [path, body] of routes) {
      const crossSite = await fromPage(path, body, {
        origin: 'http://evil.example',
        'content-type': 'application/json',
        'sec-fetch-site': 'cross-site',
      });
      expect(crossSite.status, path).toBe(403);
      const noOrigin = await fromPage(path, body, { 'content-type': 'application/json' } as ReturnType<
        typeof SAME_ORIGIN
      >);
      expect(noOrigin.status, path).toBe(403);
    }
    expect(app.received).toEqual([]);
    expect(slack.isArchived('C0BIDS')).toBe(false);
  });
});

describe('the page, as a person uses it', () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${origin}/`);
    await page.selectOption('#user-switcher', 'U0MEMBER');
    await page.locator('.channel-link[data-channel="C0BIDS"]').click();
  });
  afterAll(async () => {
    await browser?.close();
  });
  const shot = (name: string) =>
    page.screenshot({ path: join(ARTIFACTS_DIR, `workbench-reach-${name}.png`) });

  it('runs a global shortcut from the ⚡ menu and a message shortcut from a message’s “…” menu', async () => {
    const metadata = { event_type: 'tender_digest', event_payload: { hidden: 'delivery-77' } };
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'Tenders for this week', metadata });
    const message = page.locator('.message', { hasText: 'Tenders for this week' }).last();
    await message.waitFor();
    expect(await message.locator('.time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.content()).not.toContain('delivery-77');

    await page.locator('#shortcuts summary').click();
    await page.getByRole('button', { name: 'Search tenders' }).click();
    await vi.waitFor(() =>
      expect(app.received.at(-1)?.json).toMatchObject({
        type: 'shortcut',
        callback_id: 'reach/search_tenders',
      }),
    );
    await message.getByRole('button', { name: 'More actions' }).click();
    await message.getByRole('button', { name: 'Comment on a tender' }).click();
    await vi.waitFor(() =>
      expect(app.received.at(-1)?.json).toMatchObject({
        type: 'message_action',
        message: { text: 'Tenders for this week' },
        user: { id: 'U0MEMBER' },
      }),
    );
  });

  it('draws the app’s link preview under a person’s link, with buttons that work', async () => {
    const url = 'https://www.contractsfinder.service.gov.uk/Notice/0b7c0000-0000-0000-0000-0000000000aa';
    await page.fill('#composer', `Worth a look: ${url}`);
    await page.press('#composer', 'Enter');
    await vi.waitFor(() => expect(app.events('link_shared')).toHaveLength(1));
    const [event] = app.events('link_shared');
    await web.chat.unfurl({
      channel: 'C0BIDS',
      ts: event.message_ts,
      unfurls: {
        [url]: {
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: '*Office cleaning, Leeds*' } },
            {
              type: 'actions',
              elements: [
                {
                  type: 'button',
                  action_id: 'tender/bookmark',
                  text: { type: 'plain_text', text: 'Bookmark' },
                },
              ],
            },
          ],
        },
      },
    });
    await expect(
      page.locator(`.message[data-ts="${event.message_ts}"] a`).getAttribute('href'),
    ).resolves.toBe(url);
    const card = page.locator(`.message[data-ts="${event.message_ts}"] .unfurl`);
    await card.getByText('Office cleaning, Leeds').waitFor();
    await shot('unfurl');
    await card.getByRole('button', { name: 'Bookmark' }).click();
    await vi.waitFor(() =>
      expect(app.received.at(-1)?.json).toMatchObject({
        type: 'block_actions',
        container: { is_app_unfurl: true, app_unfurl_url: url },
      }),
    );
  });

  it('talks with the app in its Messages tab', async () => {
    await page.locator('#dm-link').click();
    await page.fill('#composer', 'any cleaning tenders in Leeds?');
    await page.press('#composer', 'Enter');
    await page.locator('#messages .message', { hasText: 'any cleaning tenders in Leeds?' }).waitFor();
    await vi.waitFor(() =>
      expect(app.events('message')).toEqual([
        expect.objectContaining({
          channel: 'DU0MEMBER',
          channel_type: 'im',
          text: 'any cleaning tenders in Leeds?',
        }),
      ]),
    );
    expect(app.events('app_home_opened')).toEqual([expect.objectContaining({ tab: 'messages' })]);
    await web.chat.postMessage({ channel: 'U0MEMBER', text: 'Here are 3 cleaning tenders in Leeds.' });
    await page.locator('#messages .message', { hasText: 'Here are 3 cleaning tenders' }).waitFor();
    await expect(page.locator('#main-title').textContent()).resolves.toBe('Tenderbot · Messages');
  });

  it('removes and adds Tenderbot, and archives a channel', async () => {
    await page.locator('.channel-link[data-channel="C0GENERAL"]').click();
    await page.getByRole('button', { name: 'Remove Tenderbot' }).click();
    await page.getByRole('button', { name: 'Add Tenderbot to this channel' }).click();
    await page.getByRole('button', { name: 'Remove Tenderbot' }).waitFor();
    expect(app.events().map((item) => item.type)).toEqual(['channel_left', 'member_joined_channel']);
    await page.getByRole('button', { name: 'Archive channel', exact: true }).click();
    await page.getByRole('button', { name: 'Unarchive channel' }).waitFor();
    await expect(page.locator('#composer').isDisabled()).resolves.toBe(true);
    expect(slack.isArchived('C0GENERAL')).toBe(true);
    await page.getByRole('button', { name: 'Unarchive channel' }).click();
    await page.getByRole('button', { name: 'Archive channel', exact: true }).waitFor();
    await expect(page.locator('#composer').isDisabled()).resolves.toBe(false);
  });

  it('fills an external select in a modal with the app’s options as the person types', async () => {
    await page.locator('#shortcuts summary').click();
    await page.getByRole('button', { name: 'Search tenders' }).click();
    await vi.waitFor(() => expect(app.received.at(-1)?.json.type).toBe('shortcut'));
    await web.views.open({
      trigger_id: app.received.at(-1)?.json.trigger_id,
      view: {
        type: 'modal',
        title: { type: 'plain_text', text: 'Search tenders' },
        submit: { type: 'plain_text', text: 'Search' },
        blocks: [
          {
            type: 'input',
            block_id: 'buyer',
            label: { type: 'plain_text', text: 'Buyer' },
            element: {
              type: 'external_select',
              action_id: 'reach/buyer_select',
              placeholder: { type: 'plain_text', text: 'Type a buyer' },
            },
          },
        ],
      },
    });
    const modal = page.locator('#modal');
    await modal.getByRole('searchbox', { name: 'Type a buyer' }).fill('leeds');
    const select = modal.locator('select[data-action-id="reach/buyer_select"]');
    await select.locator('option', { hasText: 'Leeds Teaching Hospitals' }).waitFor({ state: 'attached' });
    expect(app.received.find((item) => item.json.type === 'block_suggestion')?.json.value).toBe('leeds');
    await select.selectOption('buyer-lth');
    await shot('external-select');
    await modal.getByRole('button', { name: 'Search' }).click();
    await page.locator('#modal-layer').waitFor({ state: 'hidden' });
    const submitted = app.received.find((item) => item.json.type === 'view_submission')?.json;
    expect(submitted.view.state.values.buyer['reach/buyer_select'].selected_option.value).toBe('buyer-lth');
    expect(problems).toEqual([]);
  });
});

describe('slash commands typed in the page, as Slack takes them', () => {
  const sentCommand = () => new URLSearchParams(slack.lastSent?.body.toString('utf8') ?? '');

  it('refuses a command no app has, as Slackbot to the person alone, and never tells the app', async () => {
    const answer = await fromPage('/workbench/command', {
      channel: 'C0BIDS',
      text: '/tendr search cleaning',
    });
    expect(answer.status).toBe(200);
    expect(app.received).toEqual([]);
    const refusal = slack.messagesIn('C0BIDS', 'U0MEMBER').at(-1);
    expect(refusal?.authorId).toBe('USLACKBOT');
    expect(refusal?.ephemeralTo).toBe('U0MEMBER');
    expect(refusal?.text).toContain('`/tendr` is not a valid command');
    expect(slack.messagesIn('C0BIDS', 'U0ADMIN')).not.toContain(refusal);
    const state = await stateOf('U0MEMBER', 'C0BIDS');
    const shown = state.messages.find((message: { ts: string }) => message.ts === refusal?.ts);
    expect(shown).toMatchObject({ authorName: 'Slackbot', ephemeral: true });
  });

  it('takes a line starting with a space as a message, as Slack’s hint says, and shows a typed name as text', async () => {
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: ' /tendr is a typo' });
    expect(app.received).toEqual([]);
    const message = slack.messagesIn('C0BIDS', 'U0MEMBER').at(-1);
    expect(message).toMatchObject({ authorId: 'U0MEMBER', text: '/tendr is a typo', ephemeralTo: null });
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: '/<!channel>`x' });
    expect(slack.messagesIn('C0BIDS', 'U0MEMBER').at(-1)?.text).toMatch(/^`\/&lt;!channel&gt;'x` is not/);
  });

  it('sends the app’s command whatever its letter case, as the lower-case name it registered', async () => {
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: '/Tender   help me' });
    expect(app.received).toHaveLength(1);
    expect(sentCommand().get('command')).toBe('/tender');
    expect(sentCommand().get('text')).toBe('help me');
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: '/TENDER' });
    expect(sentCommand().get('command')).toBe('/tender');
    expect(sentCommand().get('text')).toBe('');
  });

  it('shows the app’s own answer to a command (its HTTP response) as Slack does', async () => {
    app.answer = () => ({ text: 'Only you see this' });
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: '/tender help' });
    const own = slack.messagesIn('C0BIDS', 'U0MEMBER').at(-1);
    expect(own).toMatchObject({ authorId: 'U0BOT', text: 'Only you see this', ephemeralTo: 'U0MEMBER' });
    app.answer = () => ({ response_type: 'in_channel', text: 'Everyone sees this' });
    await fromPage('/workbench/command', { channel: 'C0BIDS', text: '/tender help' });
    expect(slack.messagesIn('C0BIDS', 'U0ADMIN').at(-1)?.text).toBe('Everyone sees this');
  });

  it('says a command failed, as Slackbot, when the app cannot be reached', async () => {
    const away = new FakeSlack({ signingSecret: 's', botToken: 'xoxb-x', appUrl: 'http://127.0.0.1:9/none' });
    addWorkbenchRoutes(away, { postsPerSecondPerChannel: 0 });
    await away.start(0);
    try {
      const awayOrigin = away.apiUrl.replace(/\/api\/$/, '');
      const response = await request(`${awayOrigin}/workbench/command`, {
        method: 'POST',
        headers: { origin: awayOrigin, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
        body: JSON.stringify({ user: 'U0MEMBER', channel: 'C0BIDS', text: '/tender search cleaning' }),
      });
      expect(response.statusCode).toBe(200);
      await response.body.dump();
      const said = away.messagesIn('C0BIDS', 'U0MEMBER').at(-1);
      expect(said).toMatchObject({ authorId: 'USLACKBOT', ephemeralTo: 'U0MEMBER' });
      expect(said?.text).toBe('`/tender` failed with the error "dispatch_failed"');
    } finally {
      await away.stop();
    }
  });

  it('reads the commands from the manifest, lower case', () => {
    expect(manifestFeatures().commands).toEqual(['/tender']);
    expect(slashCommandOf('/tender', ['/tender'])).toEqual({ command: '/tender', text: '' });
    expect(slashCommandOf('/TenDer search  a b', ['/tender'])).toEqual({
      command: '/tender',
      text: 'search  a b',
    });
    expect(slashCommandOf('/tender\nsearch', ['/tender'])).toEqual({ command: '/tender', text: 'search' });
    expect(slashCommandOf('/tenders', ['/tender'])).toEqual({ unknown: '/tenders' });
    expect(slashCommandOf('/', ['/tender'])).toEqual({ unknown: '/' });
  });
});

describe('emoji as Slack draws them', () => {
  it('knows every shortcode the app writes; others stay as typed', async () => {
    // The page's own module, as the browser loads it.
    const modulePath = join(import.meta.dirname, '../../src/workbench/public/block-kit.js');
    const { EMOJI, renderMrkdwn } = (await import(modulePath)) as {
      EMOJI: Record<string, string>;
      renderMrkdwn(text: string, context: object): string;
    };
    const used = new Set<string>();
    for (const file of sourceFiles(join(import.meta.dirname, '../../src/app'))) {
      // A shortcode starts a word in a sentence (`:warning: …`), unlike `deadline:tender:` keys.
      for (const match of readFileSync(file, 'utf8').matchAll(
        /(?<=[\s`'"(])(:[a-z][a-z0-9_+-]*:)(?=[\s`'"])/g,
      ))
        used.add((match[1] as string).slice(1, -1));
    }
    // SQLite's in-memory database (`':memory:'` in the store) is a name, not an emoji.
    used.delete('memory');
    expect(used.size).toBeGreaterThan(5);
    expect([...used].filter((name) => !(name in EMOJI))).toEqual([]);
    expect(renderMrkdwn(':mag: :dart: :made_up: :constructor:', {})).toBe('🔍 🎯 :made_up: :constructor:');
  });
});

describe('mrkdwn as Slack draws it', () => {
  it('shows code as written: no formatting or emoji inside it, and its marks pair with none outside', async () => {
    const modulePath = join(import.meta.dirname, '../../src/workbench/public/block-kit.js');
    const { renderMrkdwn } = (await import(modulePath)) as {
      renderMrkdwn(text: string, context: object): string;
    };
    expect(renderMrkdwn('Searched: `/tender search *bold* _x_ ~s~ :mag:`', {})).toBe(
      'Searched: <code>/tender search *bold* _x_ ~s~ :mag:</code>',
    );
    // The outer pair is the bold one: the stars inside the code are the search's own words.
    expect(renderMrkdwn('*New tenders for “`*bold*`”*, open', {})).toBe(
      '<b>New tenders for “<code>*bold*</code>”</b>, open',
    );
    expect(renderMrkdwn('```a *b*\n_c_```', {})).toBe('<pre>a *b*<br>_c_</pre>');
    expect(renderMrkdwn('*bold* `code` _it_ :mag:', {})).toBe('<b>bold</b> <code>code</code> <i>it</i> 🔍');
  });
});

describe('dates as Slack draws them', () => {
  it('shows a date token in the reader’s own zone and clock, and its fallback when it is no date', async () => {
    const modulePath = join(import.meta.dirname, '../../src/workbench/public/block-kit.js');
    const { renderMrkdwn } = (await import(modulePath)) as {
      renderMrkdwn(text: string, context: object): string;
    };
    const noon = Date.parse('2026-07-03T12:00:00Z') / 1000;
    const token = `<!date^${noon}^{date_short} at {time} your time|3 Jul 2026, 12:00 UTC>`;
    const zone = process.env.TZ;
    try {
      // The page uses the browser's zone, as Slack's client uses the person's.
      process.env.TZ = 'Europe/London';
      expect(renderMrkdwn(`closes (${token})`, {})).toBe('closes (Jul 3, 2026 at 1:00 PM your time)');
      process.env.TZ = 'Asia/Kolkata';
      expect(renderMrkdwn(token, {})).toBe('Jul 3, 2026 at 5:30 PM your time');
      process.env.TZ = 'America/New_York';
      expect(renderMrkdwn(`<!date^${noon}^{date_num} {date_long} {nope}|x>`, {})).toBe(
        '2026-07-03 Friday, July 3rd, 2026 {nope}',
      );
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    // Not a date: the fallback, drawn as the characters its entities stand for.
    expect(renderMrkdwn('<!date^soon^{time}|Fish &amp; chips &lt;3>', {})).toBe('Fish &amp; chips &lt;3');
    expect(renderMrkdwn('<https://example.org/?a=1&amp;b=2|Tom &amp; Jerry>', {})).toBe(
      '<a href="https://example.org/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">Tom &amp; Jerry</a>',
    );
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}
