import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotStore } from '../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { at, subscriptionRow } from './contract-fixtures.ts';

/** One post to each of this many channels: a claim of the first of each is that many under way. */
const CHANNELS = 1200;

let database: TestDatabase;
let store: BotStore;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase('delivery_statistics');
  store = await openBotStore(database.url);
  // Its schema is made on first use.
  await store.ping();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // Only the store refreshes the statistics here: an autovacuum coming by would make this pass without it.
  await client.query('alter table deliveries set (autovacuum_enabled = off)');
  const ids = Array.from({ length: CHANNELS }, (_, index) => `s-${index}`);
  // Rows written directly (thousands of store calls would take seconds), as planning leaves them.
  await client.query(
    `insert into subscriptions (id, team_id, channel_id, kind, target, cadence, local_time, time_zone,
       created_by, created_at, paused_reason, next_run_at, cursor, cursor_at)
     select r.id, r.team_id, r.channel_id, r.kind, r.target, r.cadence, r.local_time, r.time_zone,
       r.created_by, r.created_at, r.paused_reason, r.next_run_at, r.cursor, r.cursor_at
     from json_populate_recordset(null::subscriptions, $1) r`,
    [JSON.stringify(ids.map((id, index) => subscriptionRow(id, `C${index}`, at.getTime())))],
  );
  for (const id of ids) await store.addManualDelivery({ id: `d-${id}`, subscriptionId: id, dueAt: at });
}, 60_000);

afterAll(async () => {
  await client?.end();
  await store?.close();
  await database?.drop();
});

/** The index PostgreSQL reads for a write about one delivery by its id, as markAttempt's. */
async function indexForOneDelivery(): Promise<string> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(
    `explain update deliveries set attempt_at = 1 where id = 'd-s-7' and lease_owner = 'A' and state = 'working'`,
  );
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

describe("the deliveries' statistics on PostgreSQL during a burst", () => {
  it('are refreshed once a burst is under way, so a write about one post reads it by its id', async () => {
    // Taken when the burst was planned: nothing under way in any sample.
    await client.query('analyze deliveries');
    // The hazard itself: on those figures, a write by id reads every row under way instead.
    expect(await indexForOneDelivery()).toContain('deliveries_open');
    const claimed = await store.claimDeliveries('A', at, 60_000, CHANNELS, []);
    expect(claimed).toHaveLength(CHANNELS);
    // The store refreshes them in the background once a thousand are claimed.
    const deadline = Date.now() + 10_000;
    let plan = await indexForOneDelivery();
    while (!plan.includes('deliveries_pkey') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      plan = await indexForOneDelivery();
    }
    expect(plan).toContain('deliveries_pkey');
  }, 30_000);
});
