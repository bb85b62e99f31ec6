import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClaimRequest } from '../../../src/app/delivery/delivery-queue.ts';
import type { Delivery } from '../../../src/app/storage/delivery-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import type { Subscription } from '../../../src/app/storage/subscription-store.ts';
import { duplicates, Harness, type Instance, pipelineSubscription } from './harness.ts';

// The scheduler on its own timer (as in the app), on the test's clock, with several posts due in
// one channel: they are claimed together as a run and posted one after another at the pace.
const START = Date.parse('2027-06-07T08:59:59.000Z');
const DUE = Date.parse('2027-06-07T09:00:00.000Z');
const harness = new Harness(new Date(START).toISOString(), mkdtempSync(join(tmpdir(), 'tenderbot-runs-')));
let a: Instance;
/** Each claim's deliveries, by id, as the queue handed them to the scheduler. */
const claims: { at: number; ids: string[] }[] = [];
let counter = 0;

function subscription(channelId: string, nextRunAt: number): Subscription {
  counter++;
  return pipelineSubscription(harness, {
    id: `s-r${String(counter).padStart(5, '0')}`,
    channelId,
    nextRunAt: new Date(nextRunAt),
    createdAt: new Date(START - 60_000),
  });
}

/**
 * Waits (real time, bounded) until every one of `subscriptions` has its delivery sent. `tickMs`:
 * the clock also moves on its own that much every 20 ms (a wait with nothing asleep to move it).
 */
async function allSent(subscriptions: Subscription[], tickMs = 0): Promise<Delivery[]> {
  for (let tries = 0; tries < 1500; tries++) {
    harness.now += tickMs;
    const deliveries = await Promise.all(
      subscriptions.map(async (each) => (await a.store.subscriptionDeliveries(each.id))[0]),
    );
    if (deliveries.every((delivery) => delivery?.state === 'sent')) return deliveries as Delivery[];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not every delivery was sent');
}

/** The channel's posts as Slack accepted them, by ts (seconds), oldest first. */
function acceptedIn(channel: string): number[] {
  return harness.slack
    .messagesIn(channel)
    .filter((message) => message.ephemeralTo === null)
    .map((message) => Number(message.ts))
    .sort((x, y) => x - y);
}

/** The first test's posts, stored before the copy starts so that its first pass plans them together. */
let due: Subscription[] = [];

beforeAll(async () => {
  await harness.start();
  harness.slack.postsPerSecondPerChannel = 1;
  due = ['C0BIDS', 'C0BIDS', 'C0BIDS', 'C0BIDS', 'C0GENERAL'].map((channel) => subscription(channel, DUE));
  const setup = openBotStore(harness.databaseUrl);
  for (const each of due) expect(await setup.createSubscription(each)).toBe(true);
  await setup.close();
  a = await harness.instance('A', true, {
    pollMs: 5,
    // A wait moves the clock to its end.
    sleep: async (ms) => {
      harness.now += Math.max(0, ms);
    },
  });
  // Every claim the scheduler makes, through whichever queue this database uses.
  const queue = a.bot.scheduler.queue;
  const claim = queue.claim.bind(queue);
  queue.claim = async (request: ClaimRequest) => {
    const claimed = await claim(request);
    if (claimed.length > 0) claims.push({ at: harness.now, ids: claimed.map((delivery) => delivery.id) });
    return claimed;
  };
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('a channel’s posts due together, on the timer', () => {
  it('are claimed in one claim and posted in their order, a second apart, each once', async () => {
    const deliveries = await allSent(due);
    const bids = deliveries.slice(0, 4);
    // One claim held all four of C0BIDS: nothing claimed twice, and no claim between two posts.
    const holding = claims.filter((claim) => bids.some((delivery) => claim.ids.includes(delivery.id)));
    expect(holding).toHaveLength(1);
    expect(holding[0]?.ids).toEqual(expect.arrayContaining(bids.map((delivery) => delivery.id)));
    for (const delivery of deliveries) expect(delivery.attempts).toBe(1);
    // Posted in the order they were planned in (due time, then id), the first at the due time.
    const byOrder = [...bids].sort((x, y) => (x.id < y.id ? -1 : 1));
    const sent = byOrder.map((delivery) => delivery.attemptAt?.getTime() as number);
    expect(sent[0]).toBe(DUE);
    for (let index = 1; index < sent.length; index++)
      expect((sent[index] as number) - (sent[index - 1] as number)).toBeGreaterThanOrEqual(1000);
    const accepted = acceptedIn('C0BIDS');
    expect(accepted).toHaveLength(4);
    for (let index = 1; index < accepted.length; index++)
      expect((accepted[index] as number) - (accepted[index - 1] as number)).toBeGreaterThanOrEqual(1);
    for (const each of due) expect(harness.postsOf(each.channelId, each.id)).toHaveLength(1);
    expect(duplicates(harness.slack.messagesIn('C0BIDS'))).toEqual([]);
    expect(harness.slack.rateLimited).toBe(0);
  });

  it('a post Slack refuses with Retry-After ends the run: the rest go back and wait as long, then go in order', async () => {
    const at = harness.now + 500;
    const due = [1, 2, 3].map(() => subscription('C0RETRY', at));
    // The first post of the run (nothing else is due meanwhile) is refused for 5 s.
    harness.slack.failNext('chat.postMessage', { kind: 'ratelimit', retryAfterSeconds: 5, times: 1 });
    const rateLimitedBefore = harness.slack.rateLimited;
    for (const each of due) expect(await a.store.createSubscription(each)).toBe(true);
    const deliveries = await allSent(due, 100);
    expect(harness.slack.rateLimited - rateLimitedBefore).toBe(1);
    // Nothing of the channel went before Slack's 5 s were over, and each went once, in order.
    const sent = deliveries
      .sort((x, y) => (x.id < y.id ? -1 : 1))
      .map((delivery) => delivery.attemptAt?.getTime() as number);
    for (const time of sent) expect(time).toBeGreaterThanOrEqual(at + 5000);
    // What any copy would have read meanwhile: each of them held until then, not a mere second.
    for (const delivery of deliveries) expect(delivery.notBefore.getTime()).toBeGreaterThanOrEqual(at + 5000);
    for (let index = 1; index < sent.length; index++)
      expect((sent[index] as number) - (sent[index - 1] as number)).toBeGreaterThanOrEqual(1000);
    for (const each of due) expect(harness.postsOf('C0RETRY', each.id)).toHaveLength(1);
    // The run was claimed again after the refusal (the rest had gone back), not posted past it.
    const holding = claims.filter((claim) => deliveries.some((delivery) => claim.ids.includes(delivery.id)));
    expect(holding.length).toBeGreaterThanOrEqual(2);
    expect(acceptedIn('C0RETRY')).toHaveLength(3);
  });
});
