/*
 * Planning due deliveries on Kysely, beside the delivery store (kysely-delivery-store.ts): on
 * PostgreSQL a round of subscriptions in one statement, elsewhere each subscription's
 * compare-and-set and insert in the caller's transaction.
 */
import { sql } from 'kysely';
import type { deliveryQueries } from './delivery-queries.ts';
import type { PlannedDelivery } from './delivery-store.ts';
import { changed, type RunPrepared, type SharedDatabase } from './kysely-store-base.ts';

/**
 * planDeliveries on PostgreSQL in one statement rather than two round trips a subscription (500
 * subscriptions took a thousand of them, seconds under load, while nothing was claimable): each
 * subscription still moves only from the next run it was read at, and only the one that moved it
 * plans the delivery. Rows another copy is planning at that moment are skipped, not waited for
 * (that copy plans them; had it failed, they are still due at the next pass), so two copies
 * planning one batch neither wait on nor deadlock each other. A recoverable write (a crash that
 * loses it leaves the subscriptions due, planned again).
 */
export async function planOnPostgres(
  base: SharedDatabase,
  plans: readonly PlannedDelivery[],
): Promise<number> {
  const rows = JSON.stringify(
    plans.map((plan) => ({
      subscription_id: plan.subscriptionId,
      expected: plan.expectedNextRunAt.getTime(),
      next_run_at: plan.nextRunAt.getTime(),
      skipped: plan.skipped,
      delivery_id: plan.delivery.id,
      due_at: plan.delivery.dueAt.getTime(),
    })),
  );
  const result = await planningStatement(rows).execute(base.database.recoverableDb ?? base.db);
  return Number(result.rows[0]?.moved ?? 0);
}

/**
 * planOnPostgres' statement for `rows` (a JSON array of plans). Each subscription is found by its
 * id: a burst's subscriptions share one next run (10,000 due at 09:00), and on statistics taken
 * before the burst PostgreSQL looked each one up through the due index by that time instead,
 * reading thousands of rows a subscription (49 ms a round of 500 in bench:digests, 143 ms when
 * explained; 18 ms by id). `+ 0` keeps the time out of any index's reach.
 */
export function planningStatement(rows: string) {
  return sql<{ moved: number }>`with plans as (
      select * from jsonb_to_recordset(cast(${rows} as jsonb)) as p(subscription_id text,
        expected bigint, next_run_at bigint, skipped integer, delivery_id text, due_at bigint)
    ), free as (
      select s.id from subscriptions s join plans p on p.subscription_id = s.id
      where s.next_run_at + 0 = p.expected and s.paused_reason is null
      order by s.id for update of s skip locked
    ), moved as (
      update subscriptions s set next_run_at = p.next_run_at, skipped_count = s.skipped_count + p.skipped
      from free f join plans p on p.subscription_id = f.id
      where s.id = f.id
      returning s.id, s.team_id, s.channel_id, p.delivery_id, p.due_at
    ), planned as (
      insert into deliveries (id, subscription_id, team_id, channel_id, due_at, manual, state, not_before)
      select delivery_id, id, team_id, channel_id, due_at, 0, 'pending', due_at from moved
      on conflict do nothing
      returning 1
    )
    select count(*) as moved from moved`;
}

/** The compare-and-set of next_run_at and the delivery's insert (inside a transaction). */
export async function planOne(
  queries: ReturnType<typeof deliveryQueries>,
  run: RunPrepared,
  plan: PlannedDelivery,
): Promise<boolean> {
  const moved = await run(queries.moveNextRun, {
    nextRunAt: plan.nextRunAt.getTime(),
    skipped: plan.skipped,
    id: plan.subscriptionId,
    expected: plan.expectedNextRunAt.getTime(),
  });
  if (!changed(moved)) return false;
  await run(queries.insertPlanned, {
    id: plan.delivery.id,
    dueAt: plan.delivery.dueAt.getTime(),
    subscriptionId: plan.subscriptionId,
  });
  return true;
}
