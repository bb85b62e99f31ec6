import type { Selectable } from 'kysely';
import type { BotTables } from './bot-schema.ts';
import { count, Prepared, type SharedDatabase, slot } from './kysely-store-base.ts';
import type { Cadence, Subscription, SubscriptionKind, SubscriptionStore } from './subscription-store.ts';

type SubscriptionRow = Selectable<BotTables['subscriptions']>;

/** Channel subscriptions on Kysely (see SubscriptionStore); their deliveries are KyselyDeliveryStore's. */
export class KyselySubscriptionStore implements SubscriptionStore {
  /** Read for every scheduled post: compiled once (and on SQLite run at once when the connection is free). */
  private readonly byId: Prepared<SubscriptionRow>;

  constructor(private readonly base: SharedDatabase) {
    this.byId = new Prepared(
      base.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('team_id', '=', slot<string>('teamId'))
        .where('id', '=', slot<string>('id')),
    );
  }

  async createSubscription(subscription: Subscription): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const result = await this.base.db
      .insertInto('subscriptions')
      .values({
        id: subscription.id,
        team_id: subscription.teamId,
        channel_id: subscription.channelId,
        kind: subscription.kind,
        target: subscription.target,
        cadence: subscription.cadence,
        local_time: subscription.localTime,
        time_zone: subscription.timeZone,
        created_by: subscription.createdBy,
        created_at: subscription.createdAt.getTime(),
        paused_reason: subscription.pausedReason,
        next_run_at: subscription.nextRunAt.getTime(),
        cursor: subscription.cursor,
        skipped_count: subscription.skippedCount,
      })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async getSubscription(teamId: string, id: string): Promise<Subscription | null> {
    if (this.base.pending) await this.base.pending;
    const row = (await this.base.exec(this.byId, { teamId, id })).rows[0];
    return row ? toSubscription(row) : null;
  }

  async channelSubscriptions(teamId: string, channelId: string): Promise<Subscription[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('channel_id', '=', channelId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toSubscription);
  }

  async removeSubscription(teamId: string, id: string): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    // Its deliveries and posted items go with it (ON DELETE CASCADE).
    const result = await this.base.db
      .deleteFrom('subscriptions')
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async pauseChannel(teamId: string, channelId: string, reason: string): Promise<Subscription[]> {
    if (this.base.pending) await this.base.pending;
    return this.base.transaction(async (trx) => {
      const paused = (
        await trx
          .updateTable('subscriptions')
          .set({ paused_reason: reason })
          .where('team_id', '=', teamId)
          .where('channel_id', '=', channelId)
          .where('paused_reason', 'is', null)
          .returningAll()
          .execute()
      ).map(toSubscription);
      const ids = paused.map((subscription) => subscription.id);
      if (ids.length === 0) return paused;
      // What was reserved for posts that will not happen is free again when the channel resumes.
      await trx
        .deleteFrom('delivered_items')
        .where('delivery_id', 'in', (eb) =>
          eb
            .selectFrom('deliveries')
            .select('id')
            .where('subscription_id', 'in', ids)
            .where('state', '=', 'pending'),
        )
        .execute();
      await trx
        .updateTable('deliveries')
        .set({ state: 'failed', outcome: `paused: ${reason}` })
        .where('subscription_id', 'in', ids)
        .where('state', '=', 'pending')
        .execute();
      return paused;
    });
  }

  async resumeSubscription(teamId: string, id: string, nextRunAt: Date): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const result = await this.base.db
      .updateTable('subscriptions')
      .set({ paused_reason: null, next_run_at: nextRunAt.getTime() })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .where('paused_reason', 'is not', null)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async dueSubscriptions(now: Date, limit: number): Promise<Subscription[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('paused_reason', 'is', null)
      .where('next_run_at', '<=', now.getTime())
      .orderBy('next_run_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toSubscription);
  }
}

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    teamId: row.team_id,
    channelId: row.channel_id,
    kind: row.kind as SubscriptionKind,
    target: row.target,
    cadence: row.cadence as Cadence,
    localTime: row.local_time,
    timeZone: row.time_zone,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    pausedReason: row.paused_reason,
    nextRunAt: new Date(row.next_run_at),
    cursor: row.cursor,
    skippedCount: row.skipped_count,
  };
}
