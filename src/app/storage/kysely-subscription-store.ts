import { type Insertable, type Selectable, sql } from 'kysely';
import type { BotTables } from './bot-schema.ts';
import { count, Prepared, type SharedDatabase, slot } from './kysely-store-base.ts';
import type {
  Cadence,
  ChannelSubscribed,
  ChannelSubscribing,
  ChannelSubscription,
  Subscription,
  SubscriptionKind,
  SubscriptionStore,
} from './subscription-store.ts';

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
      .values(toRow(subscription))
      .onConflict((conflict) => conflict.column('id').doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async subscribeChannel(
    teamId: string,
    channelId: string,
    decide: (existing: readonly ChannelSubscription[]) => ChannelSubscribing,
  ): Promise<ChannelSubscribed | null> {
    if (this.base.pending) await this.base.pending;
    return this.base.transaction(async (trx) => {
      // SQLite's transaction holds the write lock from its BEGIN. PostgreSQL's would let two read
      // a channel with nothing to lock in it and both insert: the channel's own lock, held to the
      // commit, makes a second subscribe read after the first has written. Channels that already
      // have two alike (from before this check) keep them: nothing here refuses a row.
      if (this.base.database.kind === 'postgres')
        await sql`select pg_advisory_xact_lock(hashtext('tenderbot subscribe'), hashtext(${`${teamId} ${channelId}`}))`.execute(
          trx,
        );
      const rows = await trx
        .selectFrom('subscriptions')
        .selectAll('subscriptions')
        .select((eb) =>
          eb
            .exists(
              eb
                .selectFrom('personal_keys')
                .select('personal_keys.user_id')
                .whereRef('personal_keys.team_id', '=', 'subscriptions.team_id')
                .whereRef('personal_keys.user_id', '=', 'subscriptions.created_by'),
            )
            .as('creator_has_own_key'),
        )
        .where('subscriptions.team_id', '=', teamId)
        .where('subscriptions.channel_id', '=', channelId)
        .orderBy('subscriptions.created_at')
        .orderBy('subscriptions.id')
        .execute();
      const existing = rows.map((row) => ({
        subscription: toSubscription(row),
        // SQLite answers 0 or 1.
        creatorHasOwnKey: Boolean(row.creator_has_own_key),
      }));
      const decided = decide(existing);
      if ('keep' in decided) return decided;
      if ('create' in decided) {
        const created = await trx
          .insertInto('subscriptions')
          .values(toRow(decided.create))
          .onConflict((conflict) => conflict.column('id').doNothing())
          .executeTakeFirst();
        return (created.numInsertedOrUpdatedRows ?? 0n) > 0n ? decided : null;
      }
      const { change } = decided;
      const before = existing.find((each) => each.subscription.id === change.id)?.subscription;
      if (!before) return null;
      // Unsubscribed between the read and this write (an unsubscribe takes no channel lock): none changed.
      const changed = await trx
        .updateTable('subscriptions')
        .set({
          target: change.target,
          cadence: change.cadence,
          local_time: change.localTime,
          time_zone: change.timeZone,
          next_run_at: change.nextRunAt.getTime(),
        })
        .where('team_id', '=', teamId)
        .where('id', '=', change.id)
        .executeTakeFirst();
      return count(changed) > 0 ? { change, before } : null;
    });
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

function toRow(subscription: Subscription): Insertable<BotTables['subscriptions']> {
  return {
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
  };
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
