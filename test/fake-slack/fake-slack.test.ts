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
