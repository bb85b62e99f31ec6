import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresBotDatabase, openSqliteBotDatabase } from '../../../src/app/storage/bot-database.ts';
import { deliveryQueries } from '../../../src/app/storage/delivery-queries.ts';
import type { Prepared } from '../../../src/app/storage/kysely-store-base.ts';
import { openBotStore } from '../../../src/app/storage/open-bot-store.ts';
import { createTestDatabase } from '../../support/postgres.ts';
import { at, later, subscription, subscriptionRow } from './contract-fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-delivery-queries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Any value for any slot: the plan, not the answer, is looked at. */
const anyArgs = new Proxy({}, { get: () => '1' }) as Readonly<Record<string, unknown>>;

describe("the scheduler's queries on SQLite", () => {
  it('never read a whole table: the deliveries are found by id or through the open ones’ indexes', async () => {
    // Finished deliveries stay 90 days: a query that scans the table reads all of them for every post.
    const database = openSqliteBotDatabase(join(dir, 'plans.db'));
    const queries = deliveryQueries(database);
    const scans: string[] = [];
    let looked = 0;
    for (const [name, query] of Object.entries(queries)) {
      if (!query) continue;
      const compiled = (query as Prepared<unknown>).bind(anyArgs);
      const { rows } = await database.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      looked++;
      for (const { detail } of rows)
        if (/^SCAN (deliveries|subscriptions|delivered_items|d|l|o|c)\b/.test(detail))
          scans.push(`${name}: ${detail}`);
    }
    expect(looked).toBeGreaterThan(15);
    expect(scans).toEqual([]);
    await database.close();
  });
});

describe('claims on SQLite', () => {
  it('answer and write what the statement with PostgreSQL’s locking steps does, over random open deliveries', async () => {
    // SQLite's claim leaves out the steps that re-check rows as they are locked (one snapshot, one
    // writer): the plain path is the full statement, run on the same rows, each in a savepoint.
    const path = join(dir, 'claims.db');
    const database = openSqliteBotDatabase(path);
    const fast = deliveryQueries(database).claim;
    const full = deliveryQueries(database, { claimSteps: 'all' }).claim;
    expect(fast.bind(anyArgs).sql).not.toContain('locked');
    expect(full.bind(anyArgs).sql).toContain('locked');
    let seed = 20261128;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const now = at.getTime();
    const claimed = { some: 0, none: 0, runs: 0 };
    try {
      // A subscription a delivery (one delivery a subscription and due time).
      await database.db
        .insertInto('subscriptions')
        .values(Array.from({ length: 14 }, (_, index) => subscriptionRow(`s-${index}`, 'C0', now)))
        .execute();
      for (let history = 0; history < 300; history++) {
        await database.db.deleteFrom('deliveries').execute();
        const rows = Array.from({ length: Math.floor(random() * 14) }, (_, index) => {
          const state = pick(['pending', 'pending', 'pending', 'working', 'sent'] as const);
          return {
            id: `d-${index}`,
            subscription_id: `s-${index}`,
            team_id: 'T1',
            channel_id: `C${Math.floor(random() * 3)}`,
            due_at: now + pick([0, 0, 1000, 2000]),
            state,
            lease_owner: state === 'working' ? pick(['A', 'B']) : null,
            lease_until: state === 'working' ? now + pick([-5000, -1, 0, 1, 60_000]) : null,
            not_before: now + pick([-1000, 0, 500, 5000]),
            posted_ts: pick(['[]', '[]', '[]', '["1.1"]']),
            attempting_part: pick([null, null, null, 0]),
          };
        });
        if (rows.length > 0) await database.db.insertInto('deliveries').values(rows).execute();
        const args = {
          owner: 'A',
          now,
          until: now + 60_000,
          ready: now + pick([0, 0, 600]),
          perChannel: pick([1, 2, 5, 5]),
          channels: pick([1, 2, 4096]),
          busy: JSON.stringify(random() < 0.3 ? ['C1'] : []),
        };
        const transact = database.transactNow;
        if (!transact) throw new Error('SQLite runs statements in a transaction at once');
        const answers = await transact(async (run) => {
          const both: unknown[] = [];
          for (const query of [fast, full]) {
            run(CompiledQuery.raw('savepoint claim', []));
            const answer = run(query.bind(args)).rows as { id: string }[];
            const written = run(CompiledQuery.raw('select * from deliveries order by id', [])).rows;
            run(CompiledQuery.raw('rollback to claim', []));
            run(CompiledQuery.raw('release claim', []));
            both.push({ claimed: answer.map((row) => row.id).sort(), written });
          }
          return both;
        });
        expect(answers[0], `history ${history}`).toEqual(answers[1]);
        const [first] = answers as { claimed: string[]; written: { id: string; channel_id: string }[] }[];
        if (first && first.claimed.length > 0) claimed.some++;
        else claimed.none++;
        // A run: two or more of one channel claimed at once.
        const taken = new Set(first?.claimed);
        const perChannel = new Map<string, number>();
        for (const row of first?.written ?? [])
          if (taken.has(row.id)) perChannel.set(row.channel_id, (perChannel.get(row.channel_id) ?? 0) + 1);
        if ([...perChannel.values()].some((count) => count >= 2)) claimed.runs++;
      }
      // Histories that claimed nothing, something, and runs of a channel: each was compared.
      expect(claimed.some).toBeGreaterThan(60);
      expect(claimed.none).toBeGreaterThan(20);
      expect(claimed.runs).toBeGreaterThan(10);
    } finally {
      await database.close();
    }
  });
});

describe('claims on PostgreSQL, while other transactions write', () => {
  it('never take a channel’s later deliveries while its first is being written by another copy', async () => {
    const database = await createTestDatabase('claim_races');
    const store = openBotStore(database.url);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      for (const id of ['s-1', 's-2', 's-3', 's-4']) await store.createSubscription(subscription(id, 'C1'));
      await store.createSubscription(subscription('s-9', 'C9'));
      for (const [index, id] of ['e-1', 'e-2', 'e-3'].entries())
        await store.addManualDelivery({ id, subscriptionId: `s-${index + 1}`, dueAt: later(index) });
      await store.addManualDelivery({ id: 'e-9', subscriptionId: 's-9', dueAt: at });
      // A took C1's run; a minute on it is still posting it (its leases have ended).
      const run = await store.claimDeliveries('A', later(2), 60_000, 1, ['C9'], 0, 3);
      expect(run.map((delivery) => delivery.id)).toEqual(['e-1', 'e-2', 'e-3']);
      // A marks its attempt at e-1 (its write not yet committed) as B claims.
      await other.query('begin');
      await other.query(
        `update deliveries set attempting_part = 0, attempt_at = $1, lease_until = $2
          where id = 'e-1' and lease_owner = 'A' and state = 'working'`,
        [later(61_000).getTime(), later(121_000).getTime()],
      );
      const meanwhile = await store.claimDeliveries('B', later(61_000), 60_000, 10, [], 0, 3);
      expect(meanwhile.map((delivery) => delivery.id)).toEqual(['e-9']);
      await other.query('commit');
      // Its write committed, e-1 is A's again (a live lease): nothing of C1 for B, now as then.
      expect(await store.claimDeliveries('B', later(61_001), 60_000, 10, [], 0, 3)).toEqual([]);
      expect((await store.getDelivery('e-2'))?.leaseOwner).toBe('A');
    } finally {
      await other.end();
      await store.close();
      await database.drop();
    }
  });

  it('take turns: a claim that sees another first of a channel than the claim under way takes none of it', async () => {
    const database = await createTestDatabase('claim_turns');
    const store = openBotStore(database.url);
    const bot = openPostgresBotDatabase(database.url);
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    try {
      await bot.ready;
      for (const index of [0, 1, 2]) {
        await store.createSubscription(subscription(`s-${index}`, 'C1'));
        await store.addManualDelivery({
          id: `e-${index}`,
          subscriptionId: `s-${index}`,
          dueAt: later(index),
        });
      }
      // e-0's content could not be read: it waits until +1.5 s. Copy B's clock says +1 s (e-0 not
      // ready: its run is e-1, e-2), copy A's +2 s (its run would start at e-0).
      await other.query(`update deliveries set not_before = $1 where id = 'e-0'`, [later(1500).getTime()]);
      const queries = deliveryQueries(bot);
      const lock = queries.lockClaims?.bind({});
      if (!lock) throw new Error('PostgreSQL claims take no turns');
      const claimB = queries.claim.bind({
        owner: 'B',
        until: later(61_000).getTime(),
        now: later(1000).getTime(),
        ready: later(1000).getTime(),
        perChannel: 3,
        busy: '[]',
        channels: 10,
      });
      await other.query('begin');
      await other.query(lock.sql, [...lock.parameters]);
      // A copy stalled holding the turn is ended by the server after 5 s idle, its turn with it.
      const idle = await other.query<{ timeout: string }>(
        `select current_setting('idle_in_transaction_session_timeout') as timeout`,
      );
      expect(idle.rows[0]?.timeout).toBe('5s');
      const byB = (await other.query<{ id: string }>(claimB.sql, [...claimB.parameters])).rows.map(
        (row) => row.id,
      );
      expect(byB.sort()).toEqual(['e-1', 'e-2']);
      // A claims while B's claim is not committed: it waits for B's turn to end, then sees B's.
      let answered = false;
      const byA = store.claimDeliveries('A', later(2000), 60_000, 10, [], 0, 3).then((claimed) => {
        answered = true;
        return claimed;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBe(false);
      await other.query('commit');
      expect(await byA).toEqual([]);
      expect((await store.getDelivery('e-0'))?.state).toBe('pending');
    } finally {
      await other.end();
      await bot.close();
      await store.close();
      await database.drop();
    }
  });
});

describe('offers on PostgreSQL, while a burst is under way', () => {
  it('read only the channels with anything claimable, not every delivery under way', async () => {
    const database = await createTestDatabase('offers_burst');
    const bot = openPostgresBotDatabase(database.url);
    try {
      await bot.ready;
      const CHANNELS = 2000;
      const now = later(0).getTime();
      await bot.db
        .insertInto('subscriptions')
        .values(
          Array.from({ length: CHANNELS + 1 }, (_, index) =>
            subscriptionRow(`sub-${index}`, `C${index}`, now + 86_400_000),
          ),
        )
        .execute();
      // Every channel's post under way with a live lease, and one channel's post ready to go.
      await bot.db
        .insertInto('deliveries')
        .values(
          Array.from({ length: CHANNELS + 1 }, (_, index) => ({
            id: `d-${index}`,
            subscription_id: `sub-${index}`,
            team_id: 'T1',
            channel_id: `C${index}`,
            due_at: now,
            state: index === CHANNELS ? 'pending' : 'working',
            lease_owner: index === CHANNELS ? null : 'A',
            lease_until: index === CHANNELS ? null : now + 60_000,
            not_before: now,
          })),
        )
        .execute();
      await bot.db.executeQuery(CompiledQuery.raw('analyze deliveries'));
      const offers = deliveryQueries(bot).firstOpen.bind({ ready: now, now, due: now, limit: 4096 });
      const { rows } = await bot.db.executeQuery<{ id: string }>(offers);
      expect(rows.map((row) => row.id)).toEqual([`d-${CHANNELS}`]);
      const explained = await bot.db.executeQuery<{ 'QUERY PLAN': unknown }>(
        CompiledQuery.raw(`explain (analyze, format json) ${offers.sql}`, [...offers.parameters]),
      );
      // The per-channel counting (window functions) saw that one channel's row, not the 2,000 under way.
      const windowRows: number[] = [];
      const walk = (node: { 'Node Type'?: string; 'Actual Rows'?: number; Plans?: unknown[] }) => {
        if (node['Node Type'] === 'WindowAgg') windowRows.push(node['Actual Rows'] ?? 0);
        for (const child of node.Plans ?? []) walk(child as typeof node);
      };
      const [plan] = (explained.rows[0]?.['QUERY PLAN'] ?? []) as { Plan: Parameters<typeof walk>[0] }[];
      if (plan) walk(plan.Plan);
      expect(windowRows.length).toBeGreaterThan(0);
      expect(Math.max(...windowRows)).toBeLessThanOrEqual(1);
    } finally {
      await bot.close();
      await database.drop();
    }
  });
});
