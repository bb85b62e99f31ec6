import { WebClient } from '@slack/web-api';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeSlack, type FakeSlackOptions } from '../../src/fake-slack/fake-slack.ts';
import { StandInApp } from './stand-in-app.ts';

// What channel subscriptions (issue 9) need of the fake Slack: a clock the test holds, time
// zones, metadata, history, Slack's per-channel posting limit, faults, channel access and DMs.
const TOKEN = 'xoxb-fake-channels';
const SECRET = 'fake-channels-secret';
const SUMMER = Date.UTC(2026, 6, 1, 9, 0, 0);
const WINTER = Date.UTC(2026, 0, 15, 9, 0, 0);

let now = SUMMER;
const app = new StandInApp(SECRET);
let appUrl: string;
const started: FakeSlack[] = [];

beforeAll(async () => {
  appUrl = await app.start();
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((slack) => slack.stop()));
});
afterAll(async () => {
  await app.stop();
});

async function startSlack(
  options: Partial<FakeSlackOptions> = {},
): Promise<{ slack: FakeSlack; web: WebClient }> {
  now = SUMMER;
  const slack = await new FakeSlack({
    signingSecret: SECRET,
    botToken: TOKEN,
    appUrl,
    clock: () => now,
    ...options,
  }).start();
  started.push(slack);
  // Without this, Slack's own client would wait out every 429 and try again.
  const web = new WebClient(TOKEN, {
    slackApiUrl: slack.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
  return { slack, web };
}

/** Slack serves an app outside the Marketplace about one history call a minute: the clock moves past it. */
function aMinuteLater(): void {
  now += 60_000;
}

/** A Web API call as raw HTTP, to see the status, headers and body Slack would send. */
async function call(slack: FakeSlack, method: string, body: Record<string, unknown>) {
  const response = await request(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: Slack's loose answer JSON.
  const json = (await response.body.json()) as any;
  return { status: response.statusCode, retryAfter: response.headers['retry-after'], json };
}

const texts = (slack: FakeSlack, channel: string) => slack.messagesIn(channel).map((message) => message.text);

describe('the clock and time zones', () => {
  it('stamps messages with the test’s clock, not the real one', async () => {
    const { slack, web } = await startSlack();
    const first = await web.chat.postMessage({ channel: 'C0BIDS', text: 'at nine' });
    expect(first.ts?.split('.')[0]).toBe(String(SUMMER / 1000));
    now += 3_600_000;
    const later = await web.chat.postMessage({ channel: 'C0BIDS', text: 'at ten' });
    expect(later.ts?.split('.')[0]).toBe(String(SUMMER / 1000 + 3600));
    expect(slack.now()).toBe(SUMMER + 3_600_000);
  });

  it('gives each person’s time zone and its offset at the clock’s instant, as users.info does', async () => {
    const { web } = await startSlack({
      users: [
        { id: 'U0LONDON', name: 'lena', realName: 'Lena London' },
        { id: 'U0NYC', name: 'nico', realName: 'Nico York', tz: 'America/New_York' },
      ],
    });
    const london = (await web.users.info({ user: 'U0LONDON' })).user;
    expect([london?.tz, london?.tz_label, london?.tz_offset]).toEqual([
      'Europe/London',
      'British Summer Time',
      3600,
    ]);
    expect((await web.users.info({ user: 'U0NYC' })).user?.tz_offset).toBe(-4 * 3600);
    now = WINTER;
    const winter = (await web.users.info({ user: 'U0LONDON' })).user;
    expect([winter?.tz_label, winter?.tz_offset]).toEqual(['Greenwich Mean Time', 0]);
    expect((await web.users.info({ user: 'U0NYC' })).user?.tz_offset).toBe(-5 * 3600);
  });
});

describe('message metadata', () => {
  it('keeps metadata sent as JSON or form-encoded, and chat.update replaces it', async () => {
    const { slack, web } = await startSlack();
    const metadata = {
      event_type: 'tender_digest',
      event_payload: { subscription_id: 's1', run: '2026-07-01' },
    };
    const asJson = await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'digest', metadata });
    expect(asJson.json.ok).toBe(true);
    expect(slack.lastMessage('C0BIDS')?.metadata).toEqual(metadata);
    // Slack's client sends a form, with metadata as a JSON string.
    const asForm = await web.chat.postMessage({ channel: 'C0BIDS', text: 'digest 2', metadata });
    expect(slack.lastMessage('C0BIDS')?.metadata).toEqual(metadata);
    const changed = { event_type: 'tender_digest', event_payload: { subscription_id: 's1', run: 'again' } };
    await web.chat.update({
      channel: 'C0BIDS',
      ts: asForm.ts as string,
      text: 'digest 2',
      metadata: changed,
    });
    expect(slack.lastMessage('C0BIDS')?.metadata).toEqual(changed);
  });
});

describe('conversations.history', () => {
  it('reads top-level messages newest first, in pages, between bounds, with metadata only when asked', async () => {
    const { slack, web } = await startSlack();
    const metadata = { event_type: 'tender_digest', event_payload: { n: 1 } };
    const posted: string[] = [];
    for (const text of ['one', 'two', 'three', 'four', 'five']) {
      posted.push((await web.chat.postMessage({ channel: 'C0BIDS', text, metadata })).ts as string);
      now += 60_000;
    }
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'a reply', thread_ts: posted[0] as string });
    await web.chat.postEphemeral({ channel: 'C0BIDS', user: 'U0ADMIN', text: 'only for Ada' });
    const gone = await web.chat.postMessage({ channel: 'C0BIDS', text: 'deleted' });
    await web.chat.delete({ channel: 'C0BIDS', ts: gone.ts as string });
    await web.chat.postMessage({ channel: 'C0GENERAL', text: 'elsewhere' });

    aMinuteLater();
    const all = await web.conversations.history({ channel: 'C0BIDS' });
    expect(all.messages?.map((message) => message.text)).toEqual(['five', 'four', 'three', 'two', 'one']);
    expect(all.messages?.at(-1)?.reply_count).toBe(1);
    expect(all.messages?.some((message) => 'metadata' in message)).toBe(false);
    expect(all.has_more).toBe(false);

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      aMinuteLater();
      const page = await web.conversations.history({ channel: 'C0BIDS', limit: 2, cursor });
      pages.push(page.messages?.map((message) => message.text as string) ?? []);
      expect(page.has_more).toBe(Boolean(page.response_metadata?.next_cursor));
      cursor = page.response_metadata?.next_cursor || undefined;
    } while (cursor);
    expect(pages).toEqual([['five', 'four'], ['three', 'two'], ['one']]);

    aMinuteLater();
    const between = await web.conversations.history({
      channel: 'C0BIDS',
      oldest: posted[1],
      latest: posted[3],
    });
    expect(between.messages?.map((message) => message.text)).toEqual(['three']);
    aMinuteLater();
    const inclusive = await web.conversations.history({
      channel: 'C0BIDS',
      oldest: posted[1],
      latest: posted[3],
      inclusive: true,
    });
    expect(inclusive.messages?.map((message) => message.text)).toEqual(['four', 'three', 'two']);

    aMinuteLater();
    const withMetadata = await web.conversations.history({
      channel: 'C0BIDS',
      limit: 1,
      include_all_metadata: true,
    });
    expect(withMetadata.messages?.[0]?.metadata).toEqual(metadata);
    // The ephemeral message is there, for Ada only: history leaves it out.
    expect(slack.messagesIn('C0BIDS', 'U0ADMIN').map((message) => message.text)).toContain('only for Ada');
  });

  it('answers channel_not_found and not_in_channel as Slack, and reads an archived channel', async () => {
    const { slack, web } = await startSlack();
    await web.chat.postMessage({ channel: 'C0GENERAL', text: 'before the archive' });
    aMinuteLater();
    await expect(web.conversations.history({ channel: 'C0NOPE' })).rejects.toThrow(/channel_not_found/);
    slack.archiveChannel('C0GENERAL');
    aMinuteLater();
    const archived = await web.conversations.history({ channel: 'C0GENERAL' });
    expect(archived.messages?.map((message) => message.text)).toEqual(['before the archive']);
    await slack.removeApp('C0GENERAL');
    aMinuteLater();
    await expect(web.conversations.history({ channel: 'C0GENERAL' })).rejects.toThrow(/not_in_channel/);
  });
});

describe('Slack’s per-channel posting limit', () => {
  it('refuses a second post in a channel within the second with 429 and Retry-After, and stores nothing', async () => {
    const { slack } = await startSlack({ postsPerSecondPerChannel: 1 });
    expect((await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'first' })).status).toBe(200);
    now += 200;
    const refused = await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'too soon' });
    expect(refused).toEqual({ status: 429, retryAfter: '1', json: { ok: false, error: 'ratelimited' } });
    expect(texts(slack, 'C0BIDS')).toEqual(['first']);
    expect(slack.rateLimited).toBe(1);
    // Another channel has its own limit; a refused post does not count against the channel.
    expect((await call(slack, 'chat.postMessage', { channel: 'C0GENERAL', text: 'here' })).status).toBe(200);
    now += 800;
    expect(
      (await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'a second later' })).status,
    ).toBe(200);
    expect(texts(slack, 'C0BIDS')).toEqual(['first', 'a second later']);
  });

  it('is off by default, and Slack’s client reports the 429 as rate limited', async () => {
    const unlimited = await startSlack();
    for (const text of ['a', 'b', 'c']) await unlimited.web.chat.postMessage({ channel: 'C0BIDS', text });
    expect(texts(unlimited.slack, 'C0BIDS')).toEqual(['a', 'b', 'c']);
    const { web } = await startSlack({ postsPerSecondPerChannel: 1 });
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'a' });
    await expect(web.chat.postMessage({ channel: 'C0BIDS', text: 'b' })).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 1,
    });
  });
});

describe('faults a test arranges', () => {
  it('answers 429 as many times as asked, then carries the call out', async () => {
    const { slack } = await startSlack();
    slack.failNext('chat.postMessage', { kind: 'ratelimit', retryAfterSeconds: 7, times: 2 });
    const answers = [];
    for (const text of ['a', 'b', 'c'])
      answers.push(await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text }));
    expect(answers.map((answer) => [answer.status, answer.retryAfter])).toEqual([
      [429, '7'],
      [429, '7'],
      [200, undefined],
    ]);
    expect(texts(slack, 'C0BIDS')).toEqual(['c']);
    expect(slack.rateLimited).toBe(2);
  });

  it('answers an error without carrying the call out, only for the channel named', async () => {
    const { slack, web } = await startSlack();
    slack.failNext('chat.postMessage', { kind: 'error', error: 'internal_error' }, { channel: 'C0GENERAL' });
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'unaffected' });
    await expect(web.chat.postMessage({ channel: 'C0GENERAL', text: 'lost' })).rejects.toThrow(
      /internal_error/,
    );
    await web.chat.postMessage({ channel: 'C0GENERAL', text: 'then fine' });
    expect(texts(slack, 'C0BIDS')).toEqual(['unaffected']);
    expect(texts(slack, 'C0GENERAL')).toEqual(['then fine']);
  });

  it('loses the answer of a call it carried out: the message is there, the caller hears nothing', async () => {
    const { slack } = await startSlack();
    slack.failNext('chat.postMessage', { kind: 'drop-answer' });
    await expect(
      call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'posted, unanswered' }),
    ).rejects.toThrow();
    expect(texts(slack, 'C0BIDS')).toEqual(['posted, unanswered']);
    expect((await call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'next' })).status).toBe(200);
  });

  it('holds an answer until released, or drops it when the caller hangs up', async () => {
    const { slack } = await startSlack();
    slack.failNext('chat.postMessage', { kind: 'hold' });
    const pending = call(slack, 'chat.postMessage', { channel: 'C0BIDS', text: 'held' });
    await vi.waitFor(() => expect(slack.heldCount).toBe(1));
    expect(texts(slack, 'C0BIDS')).toEqual(['held']);
    expect(slack.releaseHeld()).toBe(1);
    const answer = await pending;
    expect([answer.status, answer.json.ok, answer.json.ts]).toEqual([
      200,
      true,
      slack.lastMessage('C0BIDS')?.ts,
    ]);

    slack.failNext('chat.postMessage', { kind: 'hold' });
    const controller = new AbortController();
    const abandoned = request(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ channel: 'C0BIDS', text: 'caller gone' }),
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(slack.heldCount).toBe(1));
    controller.abort();
    await expect(abandoned).rejects.toThrow();
    await vi.waitFor(() => expect(slack.heldCount).toBe(0));
    expect(texts(slack, 'C0BIDS')).toEqual(['held', 'caller gone']);
  });
});

describe('channel access', () => {
  it('refuses posts in an archived channel, and says so in conversations.info', async () => {
    const { slack, web } = await startSlack();
    expect((await web.conversations.info({ channel: 'C0BIDS' })).channel).toMatchObject({
      is_archived: false,
      is_member: true,
      is_private: false,
    });
    slack.archiveChannel('C0BIDS');
    await expect(web.chat.postMessage({ channel: 'C0BIDS', text: 'x' })).rejects.toThrow(/is_archived/);
    expect((await web.conversations.info({ channel: 'C0BIDS' })).channel?.is_archived).toBe(true);
    expect(texts(slack, 'C0BIDS')).toEqual([]);
  });

  it('sends channel_left when the app is removed, member_joined_channel when it is added', async () => {
    const { slack, web } = await startSlack({
      channels: [
        { id: 'C0BIDS', name: 'bids' },
        { id: 'G0SECRET', name: 'secret-bids', isPrivate: true },
      ],
    });
    app.received.length = 0;
    await slack.removeApp('C0BIDS', 'U0MEMBER');
    expect(slack.isAppIn('C0BIDS')).toBe(false);
    await expect(web.chat.postMessage({ channel: 'C0BIDS', text: 'x' })).rejects.toThrow(/not_in_channel/);
    expect((await web.conversations.info({ channel: 'C0BIDS' })).channel?.is_member).toBe(false);
    expect(app.events('channel_left')).toEqual([
      expect.objectContaining({ type: 'channel_left', channel: 'C0BIDS', actor_id: 'U0MEMBER' }),
    ]);
    await slack.addApp('C0BIDS', 'U0ADMIN');
    await web.chat.postMessage({ channel: 'C0BIDS', text: 'back' });
    expect(texts(slack, 'C0BIDS')).toEqual(['back']);
    expect(app.events('member_joined_channel')).toEqual([
      expect.objectContaining({
        user: 'U0BOT',
        channel: 'C0BIDS',
        channel_type: 'C',
        team: 'T0TENDER',
        inviter: 'U0ADMIN',
      }),
    ]);
    expect(app.received.every((received) => received.valid)).toBe(true);
    expect((await web.conversations.info({ channel: 'G0SECRET' })).channel?.is_private).toBe(true);
  });
});

describe('direct messages', () => {
  it('posts to a user id in that person’s DM with the app, answering the DM’s id', async () => {
    const { slack, web } = await startSlack();
    const posted = await web.chat.postMessage({ channel: 'U0MEMBER', text: 'your digest' });
    expect(posted.channel).toBe('DU0MEMBER');
    expect(slack.dmOf('U0MEMBER')).toBe('DU0MEMBER');
    expect(texts(slack, 'DU0MEMBER')).toEqual(['your digest']);
    await web.chat.postMessage({ channel: 'DU0MEMBER', text: 'again' });
    const opened = await web.conversations.open({ users: 'U0MEMBER' });
    expect(opened.channel?.id).toBe('DU0MEMBER');
    const read = await web.conversations.history({ channel: 'DU0MEMBER' });
    expect(read.messages?.map((message) => message.text)).toEqual(['again', 'your digest']);
    await expect(web.chat.postMessage({ channel: 'U0NOBODY', text: 'x' })).rejects.toThrow(
      /channel_not_found/,
    );
  });
});
