import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresBotDatabase } from '../../../src/app/storage/bot-database.ts';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import type { DeliveryFinish } from '../../../src/app/storage/delivery-store.ts';
import { composeBotStore, openKyselyStores } from '../../../src/app/storage/kysely-bot-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { later, subscription } from './contract-fixtures.ts';

/**
 * The fast path of a post's finish on PostgreSQL (one statement, `finishPosted`) against the plain
 * one (a transaction of the part, the channel's pace and the cursor): the same random claims,
 * marks, records, releases and finishes run on two stores, one without the fast path, and after
 * every step both answer alike and hold the same rows.
 */
interface Side {
  database: TestDatabase;
  store: BotStore;
  client: pg.Client;
}

async function openSide(label: string, fast: boolean): Promise<Side> {
  const database = await createTestDatabase(label);
  const stores = openKyselyStores(openPostgresBotDatabase(database.url));
  // The plain path is the store's own when the fast statement is absent (as on SQLite).
  if (!fast)
    (stores.deliveries as unknown as { queries: { finishPosted: unknown } }).queries.finishPosted = null;
  const store = composeBotStore(stores);
  await store.ping();
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return { database, store, client };
}

async function rows(client: pg.Client): Promise<unknown> {
  const deliveries = await client.query(
    `select id, state, lease_owner, lease_until, not_before, posted_ts, attempting_part, attempt_at,
       outcome, attempts from deliveries order by id`,
  );
  const subscriptions = await client.query('select id, cursor, cursor_at from subscriptions order by id');
  return [deliveries.rows, subscriptions.rows];
}

let fast: Side;
let plain: Side;

beforeAll(async () => {
  [fast, plain] = await Promise.all([openSide('finish_fast', true), openSide('finish_plain', false)]);
}, 60_000);

afterAll(async () => {
  for (const side of [fast, plain]) {
    await side?.client.end();
    await side?.store.close();
    await side?.database.drop();
  }
});

describe("a post's finish on PostgreSQL in one statement", () => {
  it('answers and writes exactly what the transaction of three writes does, over random histories', async () => {
    let seed = 20261128;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    let finishedBoth = 0;
    for (let history = 0; history < 40; history++) {
      for (const side of [fast, plain])
        await side.client.query(
          'delete from delivered_items; delete from deliveries; delete from subscriptions',
        );
      const steps: ((store: BotStore) => Promise<unknown>)[] = [];
      const subscriptions = ['s-1', 's-2', 's-3', 's-4'];
      for (const [index, id] of subscriptions.entries())
        steps.push((store) => store.createSubscription(subscription(id, index < 3 ? 'C1' : 'C2')));
      for (let index = 0; index < 6; index++) {
        const due = later(Math.floor(random() * 3000));
        const subscriptionId = pick(subscriptions);
        steps.push((store) => store.addManualDelivery({ id: `d-${index}`, subscriptionId, dueAt: due }));
      }
      let clock = 0;
      for (let step = 0; step < 40; step++) {
        clock += Math.floor(random() * 20_000);
        const now = later(clock);
        const owner = pick(['A', 'B']);
        const id = `d-${Math.floor(random() * 6)}`;
        const kind = random();
        if (kind < 0.3) {
          const [lease, ahead, perChannel] = [pick([1000, 60_000]), pick([0, 5000]), pick([1, 3])];
          steps.push((store) => store.claimDeliveries(owner, now, lease, 10, [], ahead, perChannel));
        } else if (kind < 0.5) {
          const [part, lease] = [pick([0, 1]), pick([1000, 60_000])];
          steps.push((store) => store.markAttempt(id, owner, part, now, lease));
        } else if (kind < 0.6) {
          const [until, keep] = [later(clock + 500), random() < 0.5];
          steps.push((store) => store.releaseDelivery(id, owner, until, keep));
        } else {
          const finish: DeliveryFinish = {
            state: 'sent',
            outcome: null,
            lastPart: { part: pick([0, 0, 1]), ts: `${step}.000001` },
          };
          const pace = pick([null, 1000, 100_000, -1000]);
          if (pace !== null) finish.paceUntil = later(clock + pace);
          if (random() < 0.6) finish.cursor = { json: `c-${step}`, at: later(pick([clock, 10, 100_000])) };
          steps.push((store) => store.finishDelivery(id, owner, finish));
        }
      }
      for (const [index, step] of steps.entries()) {
        const [byFast, byPlain] = [await step(fast.store), await step(plain.store)];
        expect(JSON.stringify(byFast), `history ${history}, step ${index}`).toBe(JSON.stringify(byPlain));
        if (byFast === true) finishedBoth += 1;
        expect(await rows(fast.client), `history ${history}, step ${index}`).toEqual(
          await rows(plain.client),
        );
      }
    }
    // The histories reached the fast path's writes, not only its refusals.
    expect(finishedBoth).toBeGreaterThan(50);
  }, 120_000);
});
