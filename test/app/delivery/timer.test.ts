import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../../src/app/storage/delivery-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import type { Subscription } from '../../../src/app/storage/subscription-store.ts';
import { duplicates, Harness, type Instance, pipelineSubscription } from './harness.ts';

// The scheduler on its own timer (as in the app), on the test's clock: a delivery waiting for its
// due time or its channel's next second moves the clock instead of waiting (the poll is 5 ms).
const START = Date.parse('2027-06-07T08:59:59.000Z');
const DUE = Date.parse('2027-06-07T09:00:00.000Z');
const harness = new Harness(new Date(START).toISOString(), mkdtempSync(join(tmpdir(), 'tenderbot-timer-')));
let a: Instance;
const channels = { C0BIDS: ['s-t00001', 's-t00002', 's-t00003'], C0GENERAL: ['s-t00004', 's-t00005'] };

function subscription(id: string, channelId: string): Subscription {
  return pipelineSubscription(harness, {
    id,
    channelId,
    nextRunAt: new Date(DUE),
    createdAt: new Date(START - 60_000),
  });
}

beforeAll(async () => {
  await harness.start();
  harness.slack.postsPerSecondPerChannel = 1;
  // Every subscription stored before the copy starts, so its first pass plans them together: made
  // one by one under a running copy (it looks every 5 ms), a channel's first post could be planned
  // after another channel's run had moved the clock on a second for its next post.
  const setup = openBotStore(harness.databaseUrl);
  for (const [channel, ids] of Object.entries(channels))
    for (const id of ids) expect(await setup.createSubscription(subscription(id, channel))).toBe(true);
  await setup.close();
  a = await harness.instance('A', true, {
    pollMs: 5,
    // A wait moves the clock to its end (waits are computed from the clock as it is, so a later
    // one never moves it back past an earlier).
    sleep: async (ms) => {
      harness.now += Math.max(0, ms);
    },
  });
  // Every post in Slack, and recorded as sent (Slack's answer reaches the app a moment later).
  const ids = Object.values(channels).flat();
  for (let tries = 0; tries < 1500; tries++) {
    const states = await Promise.all(
      ids.map(async (id) => (await a.store.subscriptionDeliveries(id))[0]?.state),
    );
    if (states.every((state) => state === 'sent')) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}, 60_000);

afterAll(async () => {
  await a?.stop();
  await harness.stop();
});

describe('the scheduler on its timer', () => {
  it('prepares posts ahead and sends each at its due time, then one a second per channel, each once', async () => {
    for (const [channel, ids] of Object.entries(channels)) {
      const deliveries: Delivery[] = [];
      for (const id of ids) {
        expect(harness.postsOf(channel, id)).toHaveLength(1);
        const [delivery] = await a.store.subscriptionDeliveries(id);
        expect(delivery).toMatchObject({ state: 'sent', dueAt: new Date(DUE) });
        deliveries.push(delivery as Delivery);
      }
      const sent = deliveries
        .map((delivery) => delivery.attemptAt?.getTime() as number)
        .sort((x, y) => x - y);
      // The first at the due time exactly (claimed and built before it), never before.
      expect(sent[0]).toBe(DUE);
      // Then each a second or more after the one before (the pace counts from Slack's answer).
      for (let index = 1; index < sent.length; index++)
        expect((sent[index] as number) - (sent[index - 1] as number)).toBeGreaterThanOrEqual(1000);
      expect(duplicates(harness.slack.messagesIn(channel))).toEqual([]);
    }
    expect(harness.slack.rateLimited).toBe(0);
  });
});
