import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotDatabase, openPostgresBotDatabase } from '../../../src/app/storage/bot-database.ts';
import { planningStatement } from '../../../src/app/storage/delivery-planning.ts';
import { createTestDatabase, type TestDatabase } from '../../support/postgres.ts';
import { subscriptionRow } from './contract-fixtures.ts';

const SUBSCRIPTIONS = 10_000;
const NINE_O_CLOCK = Date.UTC(2026, 10, 27, 9);

let database: TestDatabase;
let bot: BotDatabase;

beforeAll(async () => {
  database = await createTestDatabase('delivery_planning');
  bot = openPostgresBotDatabase(database.url);
  await bot.ready;
  // Subscriptions made over weeks, each with a next run of its own, and the statistics taken then.
  for (let from = 0; from < SUBSCRIPTIONS; from += 2000)
    await bot.db
      .insertInto('subscriptions')
      .values(
        Array.from({ length: 2000 }, (_, offset) => from + offset).map((index) =>
          subscriptionRow(
            `sub-${String(index).padStart(5, '0')}`,
            `C${index % 400}`,
            NINE_O_CLOCK - index * 60_000,
          ),
        ),
      )
      .execute();
  await sql`analyze subscriptions`.execute(bot.db);
  // Then the morning's burst: every one of them due at 09:00.
  await bot.db.updateTable('subscriptions').set({ next_run_at: NINE_O_CLOCK }).execute();
});

afterAll(async () => {
  await bot?.close();
  await database?.drop();
});

/** A round of plans for the first `count` subscriptions, as planOnPostgres writes them. */
function plans(count: number): string {
  return JSON.stringify(
    Array.from({ length: count }, (_, index) => ({
      subscription_id: `sub-${String(index).padStart(5, '0')}`,
      expected: NINE_O_CLOCK,
      next_run_at: NINE_O_CLOCK + 86_400_000,
      skipped: 0,
      delivery_id: `delivery-${index}`,
      due_at: NINE_O_CLOCK,
    })),
  );
}

describe('planning a round of deliveries on PostgreSQL', () => {
  it('finds each subscription by its id when a whole burst shares one next run', async () => {
    // Through the due index by that shared time, each subscription read every other one due then.
    const statement = planningStatement(plans(500)).compile(bot.db);
    const { rows } = await bot.db.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain (costs off) ${statement.sql}`, [...statement.parameters]),
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');

    expect(plan).toContain('subscriptions_pkey');
    expect(plan).not.toContain('subscriptions_due');
    expect(plan).not.toMatch(/Seq Scan on subscriptions/);
  });

  it('moves each subscription from the next run it was read at, once, and plans its delivery', async () => {
    const first = await planningStatement(plans(500)).execute(bot.db);
    expect(Number(first.rows[0]?.moved)).toBe(500);
    // The same round again (another copy read the same due subscriptions): nothing moves twice.
    const again = await planningStatement(plans(500)).execute(bot.db);
    expect(Number(again.rows[0]?.moved)).toBe(0);
    const planned = await bot.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(planned.n)).toBe(500);
    const moved = await bot.db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('next_run_at', '=', NINE_O_CLOCK + 86_400_000)
      .executeTakeFirstOrThrow();
    expect(Number(moved.n)).toBe(500);
  });
});
