import { type Selectable, type SqlBool, sql } from 'kysely';
import type { BotTables } from './bot-schema.ts';
import { planOne, planOnPostgres } from './delivery-planning.ts';
import { deliveryQueries } from './delivery-queries.ts';
import type {
  Delivery,
  DeliveryFinish,
  DeliveryState,
  DeliveryStore,
  PlannedDelivery,
} from './delivery-store.ts';
import { CHUNK, changed, count, type Prepared, type SharedDatabase } from './kysely-store-base.ts';

type DeliveryRow = Selectable<BotTables['deliveries']>;

/**
 * Deliveries planned after which PostgreSQL's statistics of the table are refreshed: a burst plans
 * thousands at once, far faster than autovacuum looks (a minute), and on stale statistics the
 * claims and offers plan for a table of a few rows (bench:digests, two copies on PostgreSQL).
 */
const ANALYZE_AFTER_PLANNED = 2000;
/**
 * Deliveries claimed after which they are refreshed too. Refreshed just after a burst was planned,
 * they say nothing is under way ('working' in no sample), and the writes about one post by its id
 * then read every row under way through the open deliveries' index instead of the primary key:
 * 0.9 ms a finish against 0.2, in the runs of bench:digests where autovacuum did not come by first.
 */
const ANALYZE_AFTER_CLAIMED = 1000;

/**
 * Deliveries and their items on Kysely (see DeliveryStore): each method one statement or one
 * transaction, most of them prepared once (delivery-queries.ts), on the scheduler's path.
 */
export class KyselyDeliveryStore implements DeliveryStore {
  private readonly queries;
  /** Deliveries this store planned on PostgreSQL since it last refreshed the table's statistics. */
  private plannedSinceAnalyze = 0;
  /** Deliveries this store claimed on PostgreSQL since then. */
  private claimedSinceAnalyze = 0;

  constructor(private readonly base: SharedDatabase) {
    this.queries = deliveryQueries(base.database);
  }

  async planDelivery(
    subscriptionId: string,
    expectedNextRunAt: Date,
    nextRunAt: Date,
    skipped: number,
    delivery: { id: string; dueAt: Date },
  ): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    return this.base.preparedTransaction((run) =>
      planOne(this.queries, run, { subscriptionId, expectedNextRunAt, nextRunAt, skipped, delivery }),
    );
  }

  async planDeliveries(plans: readonly PlannedDelivery[]): Promise<number> {
    if (this.base.pending) await this.base.pending;
    if (plans.length === 0) return 0;
    if (this.base.database.kind === 'postgres') {
      const planned = await planOnPostgres(this.base, plans);
      this.plannedSinceAnalyze += planned;
      if (this.plannedSinceAnalyze >= ANALYZE_AFTER_PLANNED) this.refreshDeliveryStatistics();
      return planned;
    }
    return this.base.preparedTransaction(async (run) => {
      let planned = 0;
      for (const plan of plans) if (await planOne(this.queries, run, plan)) planned += 1;
      return planned;
    });
  }

  async addManualDelivery(delivery: { id: string; subscriptionId: string; dueAt: Date }): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    return changed(
      await this.base.exec(this.queries.insertManual, {
        id: delivery.id,
        dueAt: delivery.dueAt.getTime(),
        subscriptionId: delivery.subscriptionId,
      }),
    );
  }

  async claimDeliveries(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
    busyChannels: readonly string[],
    aheadMs = 0,
    perChannel = 1,
  ): Promise<Delivery[]> {
    return this.claimWith(this.queries.claim, {
      ...claimTerms(owner, now, leaseMs, aheadMs, perChannel),
      busy: JSON.stringify(busyChannels),
      channels: limit,
    });
  }

  async claimChannelsOf(
    ids: readonly string[],
    owner: string,
    now: Date,
    leaseMs: number,
    aheadMs: number,
    perChannel = 1,
  ): Promise<Delivery[]> {
    if (ids.length === 0) return [];
    return this.claimWith(this.queries.claimChannelsOf, {
      ...claimTerms(owner, now, leaseMs, aheadMs, perChannel),
      ids: JSON.stringify(ids),
      channels: ids.length,
    });
  }

  /** Refreshes PostgreSQL's statistics of the deliveries (see ANALYZE_AFTER_PLANNED). */
  private refreshDeliveryStatistics(): void {
    this.plannedSinceAnalyze = 0;
    this.claimedSinceAnalyze = 0;
    // In the background: it samples the table (tens of ms at tens of thousands of rows) and
    // blocks no reader or writer, but would wait behind a vacuum; SKIP_LOCKED passes it by.
    sql`analyze (skip_locked) deliveries`.execute(this.base.db).catch(() => undefined);
  }

  /** A claim, PostgreSQL's in turn with the other copies' (lockClaims); in its channels' order. */
  private async claimWith(
    query: Prepared<DeliveryRow>,
    args: Readonly<Record<string, unknown>>,
  ): Promise<Delivery[]> {
    if (this.base.pending) await this.base.pending;
    const { lockClaims } = this.queries;
    const claimed = lockClaims
      ? await this.base.recoverableTransaction(async (run) => {
          await run(lockClaims, {});
          return run(query, args);
        })
      : await this.base.execRecoverable(query, args);
    if (lockClaims) {
      this.claimedSinceAnalyze += claimed.rows.length;
      if (this.claimedSinceAnalyze >= ANALYZE_AFTER_CLAIMED) this.refreshDeliveryStatistics();
    }
    return claimed.rows.map(toDelivery).sort(inChannelOrder);
  }

  async openDeliveryIds(dueBy: Date, limit: number): Promise<string[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db
      .selectFrom('deliveries')
      .select('id')
      // As the open deliveries' partial index says it, so only they are read (see claimableAmongAll).
      .where(sql<SqlBool>`state in ('pending', 'working')`)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'pending'), eb('not_before', '<=', dueBy.getTime())]),
          eb.and([eb('state', '=', 'working'), eb('lease_until', '<=', dueBy.getTime())]),
        ]),
      )
      .orderBy('due_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  }

  async firstOpenDeliveryIds(dueBy: Date, limit: number): Promise<string[]> {
    if (this.base.pending) await this.base.pending;
    const due = dueBy.getTime();
    // Claimable by `dueBy`, as a claim at that moment would see it (ready and now alike).
    const rows = await this.base.exec(this.queries.firstOpen, { ready: due, now: due, due, limit });
    return rows.rows.map((row) => row.id);
  }

  async getDelivery(id: string): Promise<Delivery | null> {
    if (this.base.pending) await this.base.pending;
    const row = await this.base.db
      .selectFrom('deliveries')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toDelivery(row) : null;
  }

  async subscriptionDeliveries(subscriptionId: string): Promise<Delivery[]> {
    if (this.base.pending) await this.base.pending;
    const rows = await this.base.db
      .selectFrom('deliveries')
      .selectAll()
      .where('subscription_id', '=', subscriptionId)
      .orderBy('due_at')
      .orderBy('id')
      .execute();
    return rows.map(toDelivery);
  }

  async freezeDelivery(
    id: string,
    owner: string,
    frozen: string,
    itemKeys: readonly string[],
    listings?: readonly (string | null)[],
  ): Promise<{ ok: true } | { ok: false; taken: string[]; lost: boolean }> {
    if (this.base.pending) await this.base.pending;
    const { queries } = this;
    if (itemKeys.length === 0) {
      // Nothing to reserve (a summary): one row write, committed with the others of the moment.
      const written = await this.base.execRecoverable(queries.setFrozenIfOwned, { frozen, id, owner });
      return changed(written) ? { ok: true } : { ok: false, taken: [], lost: true };
    }
    return this.base.recoverableTransaction(
      async (run): Promise<{ ok: true } | { ok: false; taken: string[]; lost: boolean }> => {
        const row = (await run(queries.ownedUnfrozen, { id, owner })).rows[0];
        if (!row) return { ok: false, taken: [], lost: true };
        const subscriptionId = row.subscription_id;
        if (itemKeys.length > 0) {
          // Freezes of one subscription take turns (PostgreSQL; SQLite's transaction holds the write lock).
          if (queries.lockSubscription) await run(queries.lockSubscription, { id: subscriptionId });
          const keys = JSON.stringify(itemKeys);
          const taken = (await run(queries.takenItems, { subscriptionId, id, keys })).rows.map(
            (item) => item.item_key,
          );
          if (taken.length > 0) return { ok: false, taken, lost: false };
          // Each key once, at its first place (a key given twice is one item).
          const seen = new Set<string>();
          const items = itemKeys.flatMap((key, index) => {
            if (seen.has(key)) return [];
            seen.add(key);
            return [[key, listings?.[index] ?? null, index]];
          });
          await run(queries.reserveItems, { subscriptionId, id, items: JSON.stringify(items) });
        }
        await run(queries.setFrozen, { frozen, id });
        return { ok: true };
      },
    );
  }

  async markAttempt(
    id: string,
    owner: string,
    part: number,
    now: Date,
    leaseMs: number,
    attemptUntil?: Date,
    frozen?: string,
  ): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    // One row write, all or nothing: committed with the others marked at the same moment (SQLite's
    // group commit; a burst marks hundreds a second), and still before the post is sent. Durable
    // when it resolves, on PostgreSQL too: its flush is also that of every recoverable write before it.
    const args = {
      part,
      now: now.getTime(),
      attemptUntil: (attemptUntil ?? new Date(now.getTime() + leaseMs)).getTime(),
      until: now.getTime() + leaseMs,
      id,
      owner,
    };
    return changed(
      frozen === undefined
        ? await this.base.execGrouped(this.queries.markAttempt, args)
        : await this.base.execGrouped(this.queries.markAttemptFreezing, { ...args, frozen }),
    );
  }

  async recordSettleProgress(id: string, owner: string, latest: string): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    return changed(await this.base.execRecoverable(this.queries.settleProgress, { latest, id, owner }));
  }

  async recordPart(id: string, owner: string, part: number, ts: string): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    // Appended only in its place: a part recorded twice (a late answer) changes nothing.
    return changed(await this.base.execRecoverable(this.queries.recordPart, { ts, id, owner, part }));
  }

  async releaseDelivery(id: string, owner: string, notBefore: Date, keepAttempt: boolean): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const release = keepAttempt ? this.queries.releaseKeepingAttempt : this.queries.release;
    return changed(await this.base.execRecoverable(release, { notBefore: notBefore.getTime(), id, owner }));
  }

  async giveBack(ids: readonly string[], owner: string, notBefore: Date): Promise<number> {
    if (ids.length === 0) return 0;
    if (this.base.pending) await this.base.pending;
    const given = await this.base.execRecoverable(this.queries.giveBack, {
      notBefore: notBefore.getTime(),
      ids: JSON.stringify(ids),
      owner,
    });
    return Number(given.numAffectedRows ?? 0n);
  }

  async paceChannel(teamId: string, channelId: string, until: Date, owner: string): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await this.base.execRecoverable(this.queries.paceChannel, {
      until: until.getTime(),
      team: teamId,
      channel: channelId,
      owner,
    });
  }

  async finishDelivery(id: string, owner: string, finish: DeliveryFinish): Promise<boolean> {
    if (this.base.pending) await this.base.pending;
    const { queries } = this;
    const { lastPart } = finish;
    if (queries.finishPosted && lastPart && finish.state !== 'failed' && !finish.skippedSaid) {
      // PostgreSQL, a post's usual finish: one statement (see finishPosted), not a transaction.
      const finished = await this.base.execRecoverable(queries.finishPosted, {
        ts: lastPart.ts,
        state: finish.state,
        outcome: finish.outcome,
        id,
        owner,
        part: lastPart.part,
        until: finish.paceUntil?.getTime() ?? null,
        cursor: finish.cursor?.json ?? null,
        at: finish.cursor?.at.getTime() ?? null,
      });
      return finished.rows.length > 0;
    }
    // Committed with the other posts finishing at this moment (a burst finishes hundreds a second);
    // a crash that loses it leaves the part marked, settled from history (BotDatabase.recoverableDb).
    return this.base.recoverableTransaction(async (run) => {
      // With its last part: appended only in its place (as recordPart), in the same row write.
      const finished = finish.lastPart
        ? await run(queries.finishWithPart, {
            ts: finish.lastPart.ts,
            state: finish.state,
            outcome: finish.outcome,
            id,
            owner,
            part: finish.lastPart.part,
          })
        : await run(queries.finish, { state: finish.state, outcome: finish.outcome, id, owner });
      const row = finished.rows[0];
      if (!row) return false;
      if (finish.state === 'failed') await run(queries.freeItems, { id });
      if (finish.paceUntil) {
        await run(queries.paceChannel, {
          until: finish.paceUntil.getTime(),
          team: row.team_id,
          channel: row.channel_id,
          owner,
        });
      }
      if (finish.cursor) {
        await run(queries.moveCursor, {
          cursor: finish.cursor.json,
          at: finish.cursor.at.getTime(),
          id: row.subscription_id,
        });
      }
      if (finish.skippedSaid) {
        await run(queries.skippedSaid, { said: finish.skippedSaid, id: row.subscription_id });
      }
      return true;
    });
  }

  async pruneDeliveries(before: Date): Promise<{ deliveries: number; items: number }> {
    if (this.base.pending) await this.base.pending;
    // Which deliveries may go: the same condition for both tables, so no item outlives its delivery.
    const prunable = sql`select d.id from deliveries d
      where d.state in ('sent', 'empty', 'failed') and d.due_at < ${before.getTime()}
        and (d.state = 'failed' or exists (
          select 1 from deliveries n where n.subscription_id = d.subscription_id
            and n.state in ('sent', 'empty') and n.due_at > d.due_at))`;
    return this.base.transaction(async (trx) => {
      const items = await trx
        .deleteFrom('delivered_items')
        .where(sql<SqlBool>`delivery_id in (${prunable})`)
        .executeTakeFirst();
      const deliveries = await trx
        .deleteFrom('deliveries')
        .where(sql<SqlBool>`id in (${prunable})`)
        .executeTakeFirst();
      return { deliveries: count(deliveries), items: count(items) };
    });
  }

  async deliveredItems(subscriptionId: string, itemKeys: readonly string[]): Promise<Set<string>> {
    if (this.base.pending) await this.base.pending;
    const delivered = new Set<string>();
    for (let start = 0; start < itemKeys.length; start += CHUNK) {
      const rows = await this.base.db
        .selectFrom('delivered_items')
        .select('item_key')
        .where('subscription_id', '=', subscriptionId)
        .where('item_key', 'in', itemKeys.slice(start, start + CHUNK))
        .execute();
      for (const row of rows) delivered.add(row.item_key);
    }
    return delivered;
  }

  async deliveryListing(
    deliveryId: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; items: string[] } | null> {
    if (this.base.pending) await this.base.pending;
    const known = await this.base.db
      .selectFrom('deliveries as d')
      .select((eb) =>
        eb
          .selectFrom('delivered_items')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .whereRef('delivery_id', '=', 'd.id')
          .where('listing', 'is not', null)
          .as('n'),
      )
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    if (!known) return null;
    const rows = await this.base.db
      .selectFrom('delivered_items')
      .select('listing')
      .where('delivery_id', '=', deliveryId)
      .where('listing', 'is not', null)
      .orderBy('position')
      .limit(Math.max(0, limit))
      .offset(Math.max(0, offset))
      .execute();
    return { total: Number(known.n ?? 0), items: rows.map((row) => row.listing as string) };
  }
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    teamId: row.team_id,
    channelId: row.channel_id,
    dueAt: new Date(row.due_at),
    manual: row.manual === 1,
    state: row.state as DeliveryState,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until === null ? null : new Date(row.lease_until),
    notBefore: new Date(row.not_before),
    attempts: row.attempts,
    frozen: row.frozen,
    postedTs: JSON.parse(row.posted_ts) as string[],
    attemptingPart: row.attempting_part,
    attemptAt: row.attempt_at === null ? null : new Date(row.attempt_at),
    attemptUntil: row.attempt_until === null ? null : new Date(Number(row.attempt_until)),
    settleLatest: row.settle_latest,
    outcome: row.outcome,
  };
}

/** The values every claim binds. */
function claimTerms(owner: string, now: Date, leaseMs: number, aheadMs: number, perChannel: number) {
  return {
    owner,
    until: now.getTime() + leaseMs,
    now: now.getTime(),
    ready: now.getTime() + Math.max(0, aheadMs),
    perChannel: Math.max(1, perChannel),
  };
}

/**
 * Claimed deliveries in the order their channels take them (as the claim ranks them: a half-sent
 * one first, then by due time and id); across channels, the earliest first.
 */
function inChannelOrder(a: Delivery, b: Delivery): number {
  return (
    Number(!isHalfSent(a)) - Number(!isHalfSent(b)) ||
    a.dueAt.getTime() - b.dueAt.getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

function isHalfSent(delivery: Delivery): boolean {
  return delivery.postedTs.length > 0 || delivery.attemptingPart !== null;
}
