import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeSlack, type FakeSlackOptions } from '../../src/fake-slack/fake-slack.ts';

// Slack's changelog of 2025-05-29: an app distributed outside the Marketplace reads history at
// most 15 messages a call and about once a minute (per method and workspace), 429 beyond.
const TOKEN = 'xoxb-fake-history';
const START = Date.UTC(2026, 10, 2, 9, 0, 0);

let now = START;
const started: FakeSlack[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((slack) => slack.stop()));
});

async function startSlack(options: Partial<FakeSlackOptions> = {}): Promise<FakeSlack> {
  now = START;
  const slack = await new FakeSlack({
    signingSecret: 'fake-history-secret',
    botToken: TOKEN,
    clock: () => now,
    ...options,
  }).start();
  started.push(slack);
  return slack;
}

/** A Web API call as raw HTTP, to see the status and Retry-After Slack would send. */
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

async function postMany(slack: FakeSlack, channel: string, count: number): Promise<void> {
  for (let index = 1; index <= count; index++) {
    const posted = await call(slack, 'chat.postMessage', { channel, text: `message ${index}` });
    expect(posted.json.ok).toBe(true);
  }
}

const textsOf = (answer: { json: { messages: { text: string }[] } }) =>
  answer.json.messages.map((message) => message.text);

describe('conversations.history for an app outside the Marketplace', () => {
  it('gives at most 15 messages a call, a bigger limit clamped to 15, with has_more and a cursor to the rest', async () => {
    const slack = await startSlack();
    await postMany(slack, 'C0BIDS', 40);
    const first = await call(slack, 'conversations.history', { channel: 'C0BIDS', limit: 100 });
    expect(first.status).toBe(200);
    expect(textsOf(first)).toHaveLength(15);
    expect(textsOf(first)[0]).toBe('message 40');
    expect(textsOf(first).at(-1)).toBe('message 26');
    expect(first.json.has_more).toBe(true);
    expect(first.json.response_metadata.next_cursor).not.toBe('');

    // No limit given: 15 too (Slack's default became its maximum).
    now += 60_000;
    const defaulted = await call(slack, 'conversations.history', { channel: 'C0BIDS' });
    expect(textsOf(defaulted)).toHaveLength(15);

    // The cursor reads on from where the first page stopped, a call a minute.
    const seen = [...textsOf(first)];
    let cursor: string = first.json.response_metadata.next_cursor;
    while (cursor) {
      now += 60_000;
      const page = await call(slack, 'conversations.history', { channel: 'C0BIDS', limit: 999, cursor });
      expect(page.status).toBe(200);
      expect(textsOf(page).length).toBeLessThanOrEqual(15);
      seen.push(...textsOf(page));
      cursor = page.json.response_metadata.next_cursor;
      expect(page.json.has_more).toBe(cursor !== '');
    }
    expect(seen).toEqual(Array.from({ length: 40 }, (_, index) => `message ${40 - index}`));
  });

  it('answers a second call within the minute with 429 and Retry-After, whatever the channel or cursor, and serves it once the minute is over', async () => {
    const slack = await startSlack();
    await postMany(slack, 'C0BIDS', 20);
    await postMany(slack, 'C0GENERAL', 1);
    const first = await call(slack, 'conversations.history', { channel: 'C0BIDS' });
    expect(first.status).toBe(200);

    now += 20_000;
    const rateLimitedBefore = slack.rateLimited;
    const sameChannel = await call(slack, 'conversations.history', {
      channel: 'C0BIDS',
      cursor: first.json.response_metadata.next_cursor,
    });
    expect(sameChannel).toMatchObject({
      status: 429,
      retryAfter: '40',
      json: { ok: false, error: 'ratelimited' },
    });
    // Slack counts its limits per method and workspace: another channel waits as well.
    const otherChannel = await call(slack, 'conversations.history', { channel: 'C0GENERAL' });
    expect(otherChannel).toMatchObject({ status: 429, retryAfter: '40' });
    expect(slack.rateLimited - rateLimitedBefore).toBe(2);

    // Refused calls do not move the window: 60 s after the first served call, it is served.
    now += 39_000;
    expect((await call(slack, 'conversations.history', { channel: 'C0GENERAL' })).status).toBe(429);
    now += 1_000;
    const served = await call(slack, 'conversations.history', { channel: 'C0GENERAL' });
    expect(served.status).toBe(200);
    expect(textsOf(served)).toEqual(['message 1']);
    // conversations.replies is limited on its own (a method of its own), as history is.
    const parent = slack.lastMessage('C0BIDS')?.ts as string;
    expect((await call(slack, 'conversations.replies', { channel: 'C0BIDS', ts: parent })).status).toBe(200);
    expect((await call(slack, 'conversations.replies', { channel: 'C0BIDS', ts: parent })).status).toBe(429);
  });

  it('each workspace of one fake Slack has its own minute', async () => {
    const slack = await startSlack();
    const other = slack.addWorkspace({
      teamId: 'T0OTHER',
      teamName: 'Other',
      botToken: 'xoxb-fake-history-other',
    });
    await postMany(slack, 'C0BIDS', 1);
    expect((await call(slack, 'conversations.history', { channel: 'C0BIDS' })).status).toBe(200);
    const response = await request(`${slack.apiUrl}conversations.history`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer xoxb-fake-history-other',
        'content-type': 'application/json; charset=utf-8',
      },
      body: JSON.stringify({ channel: 'C0BIDS' }),
    });
    expect(response.statusCode).toBe(200);
    expect(((await response.body.json()) as { ok: boolean }).ok).toBe(true);
    expect(other.callsOf('conversations.history')).toHaveLength(1);
  });

  it('serves a Marketplace app (marketplaceApp) up to 999 messages a call with no one-a-minute limit', async () => {
    const slack = await startSlack({ marketplaceApp: true });
    await postMany(slack, 'C0BIDS', 120);
    const defaulted = await call(slack, 'conversations.history', { channel: 'C0BIDS' });
    expect(textsOf(defaulted)).toHaveLength(100);
    const all = await call(slack, 'conversations.history', { channel: 'C0BIDS', limit: 999 });
    expect(all.status).toBe(200);
    expect(textsOf(all)).toHaveLength(120);
    expect(all.json.has_more).toBe(false);
  });
});
