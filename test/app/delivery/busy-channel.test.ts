import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOCK_MARGIN_MS } from '../../../src/app/delivery/settle-from-history.ts';
import type { Subscription } from '../../../src/app/storage/subscription-store.ts';
import type { RecordedCall } from '../../../src/fake-slack/fake-slack.ts';
import { duplicates, Harness, type Instance, dueSubscription as makeDueSubscription } from './harness.ts';

/**
 * Exactly once in a busy channel, with history served as Slack serves an app outside the
 * Marketplace (the fake's default since the 2025-05-29 changelog: at most 15 messages a call,
 * about one call a minute per workspace, 429 beyond), on the test's clock.
 */
const harness = new Harness('2027-03-01T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-busy-')));
let a: Instance;
let b: Instance;

beforeAll(async () => {
  await harness.start();
  a = await harness.instance('A');
  b = await harness.instance('B', false);
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await harness.stop();
});

/** The scheduler's post timeout (its default, as the app runs it). */
const POST_TIMEOUT_MS = 10_000;
const PEOPLE = ['U0ADMIN', 'U0MEMBER', 'U0TOKYO'];

const historyCalls = (): RecordedCall[] => harness.slack.callsOf('conversations.history');

/** `count` messages by people in `channel`, one every `everyMs` of the clock (0: all at once). */
function chatter(channel: string, count: number, everyMs: number): void {
  for (let index = 0; index < count; index++) {
    harness.now += everyMs;
    harness.slack.postAsUser(PEOPLE[index % PEOPLE.length] as string, channel, `message ${index + 1}`);
  }
}

/** Each history read stays within the attempt's window (and its clock margins), 15 messages at most. */
function expectWithinWindow(calls: RecordedCall[], attemptAt: number): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect(Number(call.args.limit)).toBeLessThanOrEqual(15);
    expect(call.args.include_all_metadata).toBe(true);
    expect(Number(call.args.oldest) * 1000).toBeGreaterThanOrEqual(attemptAt - CLOCK_MARGIN_MS - 1);
    expect(Number(call.args.latest) * 1000).toBeLessThanOrEqual(
      attemptAt + POST_TIMEOUT_MS + CLOCK_MARGIN_MS + 1,
    );
  }
}

/** The subscription's first delivery (the lost one) is in the channel once, and recorded as sent with its ts. */
async function settledOnce(subscription: Subscription, channel: string): Promise<void> {
  const deliveries = await a.store.subscriptionDeliveries(subscription.id);
  const first = deliveries.sort((x, y) => x.dueAt.getTime() - y.dueAt.getTime())[0];
  const all = harness.postsOf(channel, subscription.id);
  expect(duplicates(all)).toEqual([]);
  const posts = all.filter((post) => post.metadata?.event_payload?.delivery_id === first?.id);
  expect(posts).toHaveLength(1);
  expect(first).toMatchObject({ state: 'sent', postedTs: [posts[0]?.ts], attemptingPart: null });
}

describe('a post whose answer was lost, in a busy channel, under Slack’s history limits', () => {
  it('75 messages over the half hour after it: settled from its own window in one history call, posted once', async () => {
    harness.now += 60_000;
    const subscription = await makeDueSubscription(harness, a.store, 'C0BIDS');
    harness.slack.failNext('chat.postMessage', { kind: 'drop-answer' }, { channel: 'C0BIDS' });
    const attemptAt = harness.now;
    await harness.pass(a);
    expect(harness.postsOf('C0BIDS', subscription.id)).toHaveLength(1);
    const [lost] = await a.store.subscriptionDeliveries(subscription.id);
    expect(lost).toMatchObject({ state: 'pending', attemptingPart: 0, postedTs: [] });
    expect(lost?.attemptUntil?.getTime()).toBe(attemptAt + POST_TIMEOUT_MS);

    // Nobody settles it for half an hour (both copies down), while people talk in the channel.
    chatter('C0BIDS', 75, 25_000);
    const before = historyCalls().length;
    await harness.pass(b, a);
    await settledOnce(subscription, 'C0BIDS');
    const reads = historyCalls().slice(before);
    expect(reads).toHaveLength(1);
    expectWithinWindow(reads, attemptAt);

    // The channel goes on: the next day's post is posted, once.
    harness.now += 86_400_000;
    await harness.pass(a, b);
    expect(harness.postsOf('C0BIDS', subscription.id)).toHaveLength(2);
  });

  it('75 messages in the same seconds: the window is read a page a minute, each copy going on where the last stopped, and it is posted once', async () => {
    harness.now += 60_000;
    const subscription = await makeDueSubscription(harness, a.store, 'C0GENERAL');
    harness.slack.failNext('chat.postMessage', { kind: 'drop-answer' }, { channel: 'C0GENERAL' });
    const attemptAt = harness.now;
    await harness.pass(a);
    expect(harness.postsOf('C0GENERAL', subscription.id)).toHaveLength(1);
    // A burst right after it: 75 messages within its window, so it is the 76th from the window's end.
    chatter('C0GENERAL', 75, 100);
    const before = historyCalls().length;
    const refusedBefore = harness.slack.rateLimited;

    await harness.runUntil(harness.now + 15 * 60_000, () => [a, b], 10_000);
    await settledOnce(subscription, 'C0GENERAL');
    const reads = historyCalls().slice(before);
    expectWithinWindow(reads, attemptAt);
    // Six pages of 15 were read, a minute apart; the calls between were refused and waited out.
    expect(reads.length - (harness.slack.rateLimited - refusedBefore)).toBe(6);
    expect(harness.slack.rateLimited - refusedBefore).toBeGreaterThan(0);
  });

  it('a post Slack did not store, 75 messages after it in the same seconds: the whole window is read, then it is posted once', async () => {
    harness.now += 60_000;
    const subscription = await makeDueSubscription(harness, a.store, 'C0FEED');
    harness.slack.failNext(
      'chat.postMessage',
      { kind: 'error', error: 'internal_error' },
      { channel: 'C0FEED' },
    );
    const attemptAt = harness.now;
    await harness.pass(a);
    expect(harness.postsOf('C0FEED', subscription.id)).toHaveLength(0);
    chatter('C0FEED', 75, 100);
    const before = historyCalls().length;
    const refusedBefore = harness.slack.rateLimited;

    await harness.runUntil(harness.now + 15 * 60_000, () => [a, b], 10_000);
    await settledOnce(subscription, 'C0FEED');
    const reads = historyCalls().slice(before);
    expectWithinWindow(reads, attemptAt);
    // All five pages of the window were read (the last without more) before it was posted.
    expect(reads.length - (harness.slack.rateLimited - refusedBefore)).toBe(5);
  });
});

describe('the same, with history served as to a Marketplace app (no limits)', () => {
  const unlimited = new Harness(
    '2027-03-01T08:00:00Z',
    mkdtempSync(join(tmpdir(), 'tenderbot-busy-unlimited-')),
    true,
  );
  let copy: Instance;
  beforeAll(async () => {
    await unlimited.start();
    copy = await unlimited.instance('C');
  }, 60_000);
  afterAll(async () => {
    await copy?.stop();
    await unlimited.stop();
  });

  it('75 messages in the same seconds after a lost answer: its window read through in one turn, posted once (the last 60 messages would not hold it)', async () => {
    const subscription = await makeDueSubscription(unlimited, copy.store, 'C0BIDS');
    unlimited.slack.failNext('chat.postMessage', { kind: 'drop-answer' }, { channel: 'C0BIDS' });
    await unlimited.pass(copy);
    for (let index = 0; index < 75; index++)
      unlimited.slack.postAsUser(PEOPLE[index % PEOPLE.length] as string, 'C0BIDS', `message ${index + 1}`);
    unlimited.now += 30_000;
    const before = unlimited.slack.callsOf('conversations.history').length;
    await unlimited.pass(copy);
    const posts = unlimited.postsOf('C0BIDS', subscription.id);
    expect(posts).toHaveLength(1);
    const [delivery] = await copy.store.subscriptionDeliveries(subscription.id);
    expect(delivery).toMatchObject({ state: 'sent', postedTs: [posts[0]?.ts] });
    // Six pages of 15 from the window's end, none refused.
    expect(unlimited.slack.callsOf('conversations.history').length - before).toBe(6);
    expect(unlimited.slack.rateLimited).toBe(0);
  });
});
