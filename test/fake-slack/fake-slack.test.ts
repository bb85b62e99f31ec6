import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../../src/fake-slack/fake-slack.ts';
import { slackSignature } from '../../src/fake-slack/signing.ts';

const TOKEN = 'xoxb-fake-test';
const SECRET = 'fake-signing-secret';

/** A stand-in app that records what the fake Slack sends it and checks the signature. */
let received: { body: string; valid: boolean; contentType: string }[] = [];
let app: Server;
let slack: FakeSlack;
let web: WebClient;

beforeAll(async () => {
  app = createServer(async (incoming, outgoing) => {
    let body = '';
    for await (const chunk of incoming) body += chunk;
    const timestamp = String(incoming.headers['x-slack-request-timestamp']);
    received.push({
      body,
      valid: incoming.headers['x-slack-signature'] === slackSignature(SECRET, timestamp, body),
      contentType: String(incoming.headers['content-type']),
    });
    outgoing.writeHead(200).end();
  });
  await new Promise<void>((ready) => app.listen(0, '127.0.0.1', ready));
  slack = await new FakeSlack({
    signingSecret: SECRET,
    botToken: TOKEN,
    appUrl: `http://127.0.0.1:${(app.address() as AddressInfo).port}/`,
  }).start();
  web = new WebClient(TOKEN, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterAll(async () => {
  await slack.stop();
  await new Promise((done) => app.close(done));
});

describe('the fake Slack Web API, through Slack’s own WebClient', () => {
  it('refuses a wrong token and answers the methods the app uses', async () => {
    await expect(
      new WebClient('xoxb-wrong', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } }).auth.test(),
    ).rejects.toThrow(/invalid_auth/);
    expect((await web.auth.test()).team_id).toBe('T0TENDER');
    expect((await web.users.info({ user: 'U0GUEST' })).user?.is_restricted).toBe(true);
    expect((await web.conversations.info({ channel: 'C0BIDS' })).channel?.name).toBe('bids');
    expect((await web.conversations.members({ channel: 'C0BIDS' })).members).toContain('U0ADMIN');
    expect((await web.conversations.join({ channel: 'C0GENERAL' })).ok).toBe(true);
    expect((await web.team.info()).team?.id).toBe('T0TENDER');
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }];
    const posted = await web.chat.postMessage({ channel: 'C0BIDS', text: 'hi', blocks });
    expect(slack.lastMessage('C0BIDS')?.blocks).toEqual(blocks);
    await web.chat.update({ channel: 'C0BIDS', ts: posted.ts as string, text: 'edited' });
    expect(slack.lastMessage('C0BIDS')?.text).toBe('edited');
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'in a thread', thread_ts: posted.ts as string });
    expect(slack.lastMessage('C0BIDS')?.threadTs).toBe(posted.ts);
    await web.chat.delete({ channel: 'C0BIDS', ts: posted.ts as string });
    expect(slack.messagesIn('C0BIDS').map((message) => message.text)).not.toContain('edited');
  });

  it('never lets chat.update change an ephemeral message: only its response_url can', async () => {
    const { message_ts: ts } = await web.chat.postEphemeral({
      channel: 'C0BIDS',
      user: 'U0MEMBER',
      text: 'for you',
    });
    await expect(web.chat.update({ channel: 'C0BIDS', ts: ts as string, text: 'changed' })).rejects.toThrow(
      /message_not_found/,
    );
    const message = slack.messagesIn('C0BIDS', 'U0MEMBER').find((candidate) => candidate.ts === ts);
    expect(message?.ephemeralTo).toBe('U0MEMBER');
    expect(slack.messagesIn('C0BIDS', 'U0ADMIN').find((candidate) => candidate.ts === ts)).toBeUndefined();
    await request(message?.responseUrl as string, {
      method: 'POST',
      body: JSON.stringify({ replace_original: true, text: 'replaced' }),
    });
    expect(message?.text).toBe('replaced');
    await request(message?.responseUrl as string, {
      method: 'POST',
      body: JSON.stringify({ delete_original: true }),
    });
    expect(message?.deleted).toBe(true);
  });

  it('opens a modal only with a fresh, unused trigger id', async () => {
    const view = { type: 'modal' as const, title: { type: 'plain_text' as const, text: 'T' }, blocks: [] };
    await expect(web.views.open({ trigger_id: 'made-up', view })).rejects.toThrow(/invalid_trigger_id/);
    received = [];
    await slack.slashCommand('U0ADMIN', 'C0BIDS', '/tender', 'connect');
    const trigger = new URLSearchParams(received[0]?.body).get('trigger_id') as string;
    expect(received[0]?.valid).toBe(true);
    expect(received[0]?.contentType).toBe('application/x-www-form-urlencoded');
    const opened = await web.views.open({ trigger_id: trigger, view: { ...view, notify_on_close: true } });
    await expect(web.views.open({ trigger_id: trigger, view })).rejects.toThrow(/invalid_trigger_id/);
    received = [];
    await slack.closeView('U0ADMIN', opened.view?.id as string);
    expect(JSON.parse(new URLSearchParams(received[0]?.body).get('payload') as string).type).toBe(
      'view_closed',
    );
  });

  it('expires a trigger id after 3 seconds', async () => {
    received = [];
    await slack.slashCommand('U0ADMIN', 'C0BIDS', '/tender', 'connect');
    const trigger = new URLSearchParams(received[0]?.body).get('trigger_id') as string;
    await new Promise((resolve) => setTimeout(resolve, 3100));
    await expect(
      web.views.open({
        trigger_id: trigger,
        view: { type: 'modal', title: { type: 'plain_text', text: 'T' }, blocks: [] },
      }),
    ).rejects.toThrow(/expired_trigger_id/);
  });

  it('answers 429 with Retry-After when rate limits are on', async () => {
    const limited = await new FakeSlack({
      signingSecret: SECRET,
      botToken: TOKEN,
      rateLimitPerSecond: 1,
    }).start();
    try {
      const client = new WebClient(TOKEN, {
        slackApiUrl: limited.apiUrl,
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
      });
      const results = await Promise.allSettled([client.auth.test(), client.auth.test(), client.auth.test()]);
      const refused = results.filter((result) => result.status === 'rejected') as PromiseRejectedResult[];
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused[0]?.reason.code).toBe('slack_webapi_rate_limited_error');
      expect(refused[0]?.reason.retryAfter).toBe(1);
    } finally {
      await limited.stop();
    }
  });
});

describe('the fake Slack as a sender of hostile and repeated requests', () => {
  it('lets a command’s later answer through its response_url replace its earlier one', async () => {
    received = [];
    await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search');
    const responseUrl = new URLSearchParams(received[0]?.body ?? '').get('response_url') ?? '';
    expect(responseUrl).toMatch(/^http/);
    const before = slack.messagesIn('C0BIDS', 'U0MEMBER').length;
    const post = (body: unknown) =>
      request(responseUrl, { method: 'POST', body: JSON.stringify(body) }).then((answer) =>
        answer.body.json(),
      );
    await post({ text: 'slow…' });
    const first = slack.messagesIn('C0BIDS', 'U0MEMBER')[before];
    expect(first?.text).toBe('slow…');
    await post({ text: 'the answer', replace_original: true });
    expect(slack.messagesIn('C0BIDS', 'U0MEMBER')).toHaveLength(before + 1);
    expect(first?.text).toBe('the answer');
  });

  it('tells the answer to a command from a late answer to an earlier command, by the response_url each came through', async () => {
    const before = slack.messagesIn('C0BIDS', 'U0MEMBER').length;
    const earlier = await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search roads');
    const later = await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'help');
    expect(earlier.responseUrl).toMatch(/^http/);
    expect(later.responseUrl).not.toBe(earlier.responseUrl);
    const post = (url: string | undefined, text: string) =>
      request(url ?? '', { method: 'POST', body: JSON.stringify({ text }) }).then((answer) =>
        answer.body.json(),
      );
    // The earlier command's answer arrives first, after the later command was typed.
    await post(earlier.responseUrl, 'roads, late');
    await post(later.responseUrl, 'the help');
    expect(slack.answerTo(later, 'C0BIDS', 'U0MEMBER', before)?.text).toBe('the help');
    expect(slack.answerTo(earlier, 'C0BIDS', 'U0MEMBER', before)?.text).toBe('roads, late');
    // Each message says which response_url it came through (a Web API post, none).
    expect(slack.messagesIn('C0BIDS', 'U0MEMBER')[before]?.postedThrough).toBe(earlier.responseUrl);
  });

  it('reads a body of many chunks whole, so a character split between two is kept', async () => {
    const sent = await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'search');
    // 39,000 curly quotes (three bytes each, under Slack's 40,000 characters): 117 KB, more than one
    // chunk on loopback.
    const text = '’'.repeat(39_000);
    const answer = await request(sent.responseUrl ?? '', { method: 'POST', body: JSON.stringify({ text }) });
    expect(answer.statusCode).toBe(200);
    await answer.body.dump();
    const posted = slack
      .messagesIn('C0BIDS', 'U0MEMBER')
      .find((message) => message.postedThrough === sent.responseUrl);
    expect(posted?.text.length).toBe(39_000);
    expect(posted?.text).toBe(text);
  });

  it('sends the very same bytes again, and signs raw bytes and any content type', async () => {
    received = [];
    await slack.sendRaw('a=1', 'text/plain');
    const sent = slack.lastSent;
    expect(sent).not.toBeNull();
    if (!sent) return;
    await slack.resend(sent);
    expect(received).toHaveLength(2);
    expect(received[1]).toEqual(received[0]);
    expect(received[0]).toEqual({ body: 'a=1', valid: true, contentType: 'text/plain' });
    expect(slackSignature(SECRET, 1, Buffer.from('é'))).toBe(slackSignature(SECRET, 1, 'é'));
  });
});

/** The payload the stand-in app received last (form-encoded `payload=`). */
// biome-ignore lint/suspicious/noExplicitAny: Slack's loose payload JSON.
function lastPayload(): any {
  return JSON.parse(new URLSearchParams(received.at(-1)?.body ?? '').get('payload') ?? 'null');
}

describe('what the features need: selects, dates, threads, metadata, view stacks', () => {
  it('sends block_actions for a static_select (selected_option) and an overflow, and refuses an unknown option', async () => {
    const options = ['pending', 'completed'].map((value) => ({
      text: { type: 'plain_text' as const, text: value },
      value,
    }));
    const posted = await web.chat.postMessage({
      channel: 'C0BIDS',
      text: 'stage',
      blocks: [
        {
          type: 'section',
          block_id: 'stage:1',
          text: { type: 'mrkdwn', text: 'Draft' },
          accessory: { type: 'static_select', action_id: 'pipeline/stage_status', options },
        },
        { type: 'actions', elements: [{ type: 'overflow', action_id: 'pipeline/more', options }] },
      ],
    });
    const message = slack.messagesIn('C0BIDS').find((candidate) => candidate.ts === posted.ts);
    expect(message).toBeDefined();
    if (!message) return;
    received = [];
    await slack.clickInMessage('U0MEMBER', message, 'pipeline/stage_status', { selectedOption: 'completed' });
    expect(received[0]?.valid).toBe(true);
    const select = lastPayload();
    expect(select.type).toBe('block_actions');
    expect(select.actions[0]).toMatchObject({
      type: 'static_select',
      action_id: 'pipeline/stage_status',
      block_id: 'stage:1',
      selected_option: { value: 'completed' },
    });
    await slack.clickInMessage('U0MEMBER', message, 'pipeline/more', { selectedOption: 'pending' });
    expect(lastPayload().actions[0]).toMatchObject({
      type: 'overflow',
      selected_option: { value: 'pending' },
    });
    await expect(
      slack.clickInMessage('U0MEMBER', message, 'pipeline/more', { selectedOption: 'nonsense' }),
    ).rejects.toThrow(/no option/);
  });

  it('gives each click its own response_url: an answer through it is for the person who clicked', async () => {
    const posted = await web.chat.postMessage({
      channel: 'C0GENERAL',
      text: 'card',
      blocks: [
        {
          type: 'actions',
          elements: [
            { type: 'button', action_id: 'card/act', value: 'v', text: { type: 'plain_text', text: 'Act' } },
          ],
        },
      ],
    });
    const message = slack.messagesIn('C0GENERAL').find((candidate) => candidate.ts === posted.ts);
    expect(message).toBeDefined();
    if (!message) return;
    const urls: string[] = [];
    for (const userId of ['U0MEMBER', 'U0ADMIN']) {
      await slack.clickInMessage(userId, message, 'card/act');
      urls.push(lastPayload().response_url);
    }
    expect(urls[0]).not.toBe(urls[1]);
    const answer = await request(urls[0] as string, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'only for the clicker', replace_original: false }),
    });
    await answer.body.dump();
    const seenBy = (userId: string) =>
      slack.messagesIn('C0GENERAL', userId).filter((candidate) => candidate.text === 'only for the clicker');
    expect(seenBy('U0MEMBER')).toHaveLength(1);
    expect(seenBy('U0MEMBER')[0]?.ephemeralTo).toBe('U0MEMBER');
    expect(seenBy('U0ADMIN')).toEqual([]);
  });

  it('gives a click in the Home tab or in a modal no response_url, as Slack gives none there', async () => {
    const actions = {
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'view/act', value: 'v', text: { type: 'plain_text', text: 'Act' } },
      ],
    };
    await web.views.publish({ user_id: 'U0MEMBER', view: { type: 'home', blocks: [actions] } });
    const home = slack.homeOf('U0MEMBER');
    expect(home).toBeDefined();
    slack.views.set('V0AMODAL', {
      id: 'V0AMODAL',
      userId: 'U0MEMBER',
      kind: 'modal',
      view: {
        id: 'V0AMODAL',
        type: 'modal',
        title: { type: 'plain_text', text: 'A form' },
        blocks: [actions],
      },
    });
    for (const viewId of [home?.id ?? '', 'V0AMODAL']) {
      await slack.clickInView('U0MEMBER', viewId, 'view/act');
      const payload = lastPayload();
      expect(payload.container).toEqual({ type: 'view', view_id: viewId });
      expect(payload).not.toHaveProperty('response_url');
      expect(payload).not.toHaveProperty('channel');
    }
  });

  it('posts replies in a thread, keeps message metadata, and gives a permalink', async () => {
    const metadata = { event_type: 'pipeline_card', event_payload: { pipeline_id: 'p1' } };
    const parent = await web.chat.postMessage({ channel: 'C0BIDS', text: 'card', metadata });
    const parentTs = parent.ts as string;
    expect(parent.message?.metadata).toEqual(metadata);
    const stored = slack.messagesIn('C0BIDS').find((message) => message.ts === parentTs);
    expect(stored?.metadata).toEqual(metadata);
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'moved Draft to completed', thread_ts: parentTs });
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'moved Review to blocked', thread_ts: parentTs });
    const thread = slack.threadOf('C0BIDS', parentTs);
    expect(thread.length).toBeGreaterThan(0);
    expect(thread.map((message) => message.text)).toEqual([
      'moved Draft to completed',
      'moved Review to blocked',
    ]);
    const replies = await web.conversations.replies({ channel: 'C0BIDS', ts: parentTs });
    expect(replies.messages?.map((message) => message.text)).toEqual([
      'card',
      'moved Draft to completed',
      'moved Review to blocked',
    ]);
    // A reply under a message that does not exist is Slack's thread_not_found.
    await expect(
      web.chat.postMessage({ channel: 'C0BIDS', text: 'lost', thread_ts: '1.000001' }),
    ).rejects.toThrow(/thread_not_found/);
    // A click on a card carries its metadata, as Slack's payload does.
    if (!stored) return;
    stored.blocks = [
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'x/y', value: 'v', text: { type: 'plain_text', text: 'x' } }],
      },
    ];
    await slack.clickInMessage('U0MEMBER', stored, 'x/y');
    expect(lastPayload().message.metadata).toEqual(metadata);
    const link = await web.chat.getPermalink({ channel: 'C0BIDS', message_ts: parentTs });
    expect(link.permalink).toContain(`/archives/C0BIDS/p${parentTs.replace('.', '')}`);
  });

  it('submits date pickers, selects and text inputs as Slack shapes view.state.values', async () => {
    received = [];
    await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'pipeline new');
    const trigger = new URLSearchParams(received[0]?.body ?? '').get('trigger_id') ?? '';
    const opened = await web.views.open({
      trigger_id: trigger,
      view: {
        type: 'modal',
        callback_id: 'pipeline/start',
        title: { type: 'plain_text', text: 'Start a bid' },
        submit: { type: 'plain_text', text: 'Start' },
        blocks: [
          {
            type: 'input',
            block_id: 'name',
            label: { type: 'plain_text', text: 'Name' },
            element: { type: 'plain_text_input', action_id: 'name' },
          },
          {
            type: 'input',
            block_id: 'target',
            label: { type: 'plain_text', text: 'Date' },
            element: { type: 'datepicker', action_id: 'target' },
          },
          {
            type: 'input',
            block_id: 'status',
            label: { type: 'plain_text', text: 'Status' },
            element: {
              type: 'static_select',
              action_id: 'status',
              options: [{ text: { type: 'plain_text', text: 'Active' }, value: 'active' }],
            },
          },
        ],
      },
    });
    const viewId = opened.view?.id as string;
    await slack.submitView('U0MEMBER', viewId, {
      name: 'Bid for cleaning',
      target: '2026-12-24',
      status: 'active',
    });
    const values = lastPayload().view.state.values;
    expect(values.name.name).toEqual({ type: 'plain_text_input', value: 'Bid for cleaning' });
    expect(values.target.target).toEqual({ type: 'datepicker', selected_date: '2026-12-24' });
    expect(values.status.status.selected_option.value).toBe('active');
  });

  it('pushes views onto a modal, and refuses an update made from an older hash', async () => {
    received = [];
    await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'comments');
    const first = new URLSearchParams(received[0]?.body ?? '').get('trigger_id') ?? '';
    const view = { type: 'modal' as const, title: { type: 'plain_text' as const, text: 'One' }, blocks: [] };
    const opened = await web.views.open({ trigger_id: first, view });
    received = [];
    await slack.slashCommand('U0MEMBER', 'C0BIDS', '/tender', 'again');
    const second = new URLSearchParams(received[0]?.body ?? '').get('trigger_id') ?? '';
    const pushed = await web.views.push({
      trigger_id: second,
      view: { ...view, title: { type: 'plain_text', text: 'Two' } },
    });
    expect(pushed.view?.id).not.toBe(opened.view?.id);
    const viewId = opened.view?.id as string;
    const hash = opened.view?.hash as string;
    const updated = await web.views.update({
      view_id: viewId,
      hash,
      view: { ...view, title: { type: 'plain_text', text: 'One, updated' } },
    });
    expect(updated.view?.hash).not.toBe(hash);
    // The same old hash again: someone else's update came first.
    await expect(web.views.update({ view_id: viewId, hash, view })).rejects.toThrow(/hash_conflict/);
    expect(slack.views.get(viewId)?.view.title.text).toBe('One, updated');
  });
});
