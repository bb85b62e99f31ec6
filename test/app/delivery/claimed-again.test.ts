import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClaimRequest,
  type DeliveryQueue,
  LeaseTableQueue,
} from '../../../src/app/delivery/delivery-queue.ts';
import { PgBossQueue } from '../../../src/app/delivery/pg-boss-queue.ts';
import type { Delivery } from '../../../src/app/storage/delivery-store.ts';
import { eventually } from '../../support/bot.ts';
import { dueSubscription, duplicates, Harness, type Instance } from './harness.ts';

/**
 * A delivery handed to the copy that is still posting it: a job queue may hand out a delivery
 * again (its job fetched a second time after the claim was lost in a database crash, or after its
 * lease ran out), and the store then lets the same copy claim it. The copy must not start a second
 * run beside the one under way.
 */
const harness = new Harness('2027-02-01T08:00:00Z', mkdtempSync(join(tmpdir(), 'tenderbot-claimed-again-')));
let copy: Instance;
/** What the queue handed out first, handed out again once asked to (handAgain). */
let handedOut: Delivery[] = [];
let handAgain = false;
const onPostgres = process.env.TENDERBOT_TEST_DATABASE === 'postgres';

/** The app's own queue (the table's leases, or pg-boss on PostgreSQL), handing a delivery out again. */
class HandingAgainQueue implements DeliveryQueue {
  readonly kind = onPostgres ? 'pg-boss' : 'lease-table';
  /** Made once the copy's store is open. */
  inner: DeliveryQueue | null = null;
  private get queue(): DeliveryQueue {
    if (!this.inner) throw new Error('no queue yet');
    return this.inner;
  }
  start(): Promise<void> {
    return this.queue.start();
  }
  stop(): Promise<void> {
    return this.queue.stop();
  }
  offer(dueBy: Date): Promise<void> {
    return this.queue.offer(dueBy);
  }
  async claim(request: ClaimRequest): Promise<Delivery[]> {
    const claimed = await this.queue.claim(request);
    if (handAgain) {
      handAgain = false;
      return [...claimed, ...handedOut];
    }
    if (claimed.length > 0) handedOut = claimed;
    return claimed;
  }
  done(deliveryId: string): Promise<void> {
    return this.queue.done(deliveryId);
  }
}

const queue = new HandingAgainQueue();

beforeAll(async () => {
  await harness.start();
  copy = await harness.instance('A', true, { queue });
  queue.inner = onPostgres
    ? new PgBossQueue({
        connectionString: harness.databaseUrl,
        store: copy.store,
        logger: pino({ level: 'silent' }),
        expireInSeconds: 120,
      })
    : new LeaseTableQueue(copy.store);
}, 60_000);

afterAll(async () => {
  await copy?.stop();
  await harness.stop();
});

describe('a delivery handed again to the copy posting it', () => {
  it('is posted once: no second run starts beside the one under way', async () => {
    const subscription = await dueSubscription(harness, copy.store, 'C0BIDS');
    // Slack keeps the first post's answer, so the first run is still under way when the queue
    // hands the delivery out again.
    harness.slack.failNext('chat.postMessage', { kind: 'hold', times: 1 });
    const first = copy.bot.scheduler.runDue();
    await eventually(() => harness.slack.heldCount === 1, 'the first post to be held');
    expect(handedOut.map((delivery) => delivery.subscriptionId)).toEqual([subscription.id]);
    handAgain = true;
    // A second pass while the first still waits: its claim finds the delivery again (a pass waits
    // for what is under way, so the held answer is let go once that claim is made).
    const second = copy.bot.scheduler.runDue();
    await eventually(() => !handAgain, 'the second claim');
    harness.slack.releaseHeld();
    await Promise.all([first, second]);
    const posts = harness.postsOf('C0BIDS', subscription.id);
    expect(posts).toHaveLength(1);
    expect(duplicates(posts)).toEqual([]);
    const [delivery] = await copy.store.subscriptionDeliveries(subscription.id);
    expect(delivery?.state).toBe('sent');
  });
});
