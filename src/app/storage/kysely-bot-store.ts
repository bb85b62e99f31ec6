/*
 * Over 500 lines for now: one class over the bot's tables until the rebuild gives each aggregate
 * its own store (the open issue "A house a Bolt maintainer would hold up", item 5), done in one
 * step with the store interface rather than piece by piece.
 */
import {
  type CompiledQuery,
  type Kysely,
  type QueryResult,
  type Selectable,
  type SqlBool,
  sql,
  type Transaction,
} from 'kysely';
import type { BotDatabase } from './bot-database.ts';
import type { BotTables } from './bot-schema.ts';
import type {
  BotStore,
  Cadence,
  CommandToQueue,
  CommentAuthor,
  Delivery,
  DeliveryFinish,
  DeliveryState,
  InstallationQuery,
  PersonalKey,
  PipelineMessage,
  PlannedDelivery,
  QueuedCommand,
  RemovedWorkspace,
  StoredInstallation,
  StoredSecret,
  Subscription,
  SubscriptionKind,
  WorkspaceConnection,
  WorkspaceSettings,
} from './bot-store.ts';

/** How often expired remembered requests are deleted (they are ignored once expired anyway). */
const SEEN_REQUESTS_PRUNE_MS = 60_000;
/** Ids per `IN (…)`: well under either database's limit on bound parameters, and few statement shapes. */
const CHUNK = 100;

/** A named placeholder in a query compiled once; bound by name on each run. */
class Slot {
  constructor(readonly name: string) {}
}
const slot = <T>(name: string): T => new Slot(name) as unknown as T;

/**
 * A query Kysely builds and compiles once (the scheduler runs some of these for every post):
 * each run only binds its values, and SQLite's statement for its text is prepared once too.
 */
class Prepared<Row> {
  private readonly compiled: CompiledQuery<Row>;
  private readonly values: ((args: Readonly<Record<string, unknown>>) => unknown)[];

  constructor(query: { compile(): CompiledQuery<Row> }) {
    this.compiled = query.compile();
    this.values = this.compiled.parameters.map((parameter) => {
      if (!(parameter instanceof Slot)) return () => parameter;
      const { name } = parameter;
      return (args) => {
        const value = args[name];
        if (value === undefined) throw new Error(`no value for ${name}`);
        return value;
      };
    });
  }

  /**
   * Runs it with `args`: on `executor` (the store's Kysely, or a transaction of it); `runNow`
   * (SQLite) runs it at once when `executor` is not a transaction and the connection is free.
   */
  run(
    executor: Kysely<BotTables>,
    args: Readonly<Record<string, unknown>>,
    runNow?: BotDatabase['runNow'],
  ): Promise<QueryResult<Row>> {
    const query = this.bind(args);
    const result = runNow?.(query);
    return result ? Promise.resolve(result as QueryResult<Row>) : executor.executeQuery(query);
  }

  /** The compiled query with `args` in its slots. */
  bind(args: Readonly<Record<string, unknown>>): CompiledQuery<Row> {
    return { ...this.compiled, parameters: this.values.map((value) => value(args)) };
  }
}

/** Runs a prepared query inside a transaction (see KyselyBotStore.preparedTransaction). */
type RunPrepared = <Row>(
  query: Prepared<Row>,
  args: Readonly<Record<string, unknown>>,
) => Promise<QueryResult<Row>>;

const changed = (result: { numAffectedRows?: bigint }): boolean => (result.numAffectedRows ?? 0n) > 0n;
/** Rows a delete or update changed. */
const count = (result: { numDeletedRows: bigint } | { numUpdatedRows: bigint }): number =>
  Number('numDeletedRows' in result ? result.numDeletedRows : result.numUpdatedRows);

type SubscriptionRow = Selectable<BotTables['subscriptions']>;
type DeliveryRow = Selectable<BotTables['deliveries']>;
type InstallationRow = Selectable<BotTables['installations']>;
type PersonalKeyRow = Selectable<BotTables['personal_keys']>;
type WorkspaceRow = Selectable<BotTables['workspaces']>;

/**
 * The bot's store on Kysely: the same code and queries on SQLite (better-sqlite3) and PostgreSQL
 * (pg), the few spellings that differ taken from BotDatabase. Every method is one statement or one
 * transaction, so copies of the app on one database never plan, claim or record a thing twice.
 */
export class KyselyBotStore implements BotStore {
  private readonly db: Kysely<BotTables>;
  /** Until PostgreSQL's schema is up to date; null once it is (SQLite's is at open). Every method awaits it first. */
  private pending: Promise<void> | null;
  private lastPruneMs = 0;
  private readonly queries;

  constructor(private readonly database: BotDatabase) {
    this.db = database.db;
    this.pending = database.kind === 'sqlite' ? null : database.ready;
    database.ready.then(
      () => {
        this.pending = null;
      },
      () => {},
    );
    this.queries = prepareQueries(database);
  }

  /** One of the prepared queries on its own (not in a transaction). */
  private exec<Row>(
    query: Prepared<Row>,
    args: Readonly<Record<string, unknown>>,
  ): Promise<QueryResult<Row>> {
    return query.run(this.db, args, this.database.runNow);
  }

  /**
   * One of the prepared queries on its own, committed with others asked for at the same moment
   * where the database can (SQLite's group commit): for the writes every request makes.
   */
  private execGrouped<Row>(
    query: Prepared<Row>,
    args: Readonly<Record<string, unknown>>,
  ): Promise<QueryResult<Row>> {
    const { runBatched } = this.database;
    return runBatched
      ? (runBatched(query.bind(args)) as Promise<QueryResult<Row>>)
      : query.run(this.db, args, this.database.runNow);
  }

  /**
   * A transaction of prepared queries only (the scheduler's: planning, finishing a post). On SQLite
   * its statements run directly inside BEGIN IMMEDIATE … COMMIT on the connection, held throughout;
   * elsewhere it is a Kysely transaction.
   */
  private preparedTransaction<T>(work: (run: RunPrepared) => Promise<T>): Promise<T> {
    const { transactNow } = this.database;
    if (transactNow) {
      return transactNow((direct) =>
        work(<Row>(query: Prepared<Row>, args: Readonly<Record<string, unknown>>) =>
          Promise.resolve(direct(query.bind(args)) as QueryResult<Row>),
        ),
      );
    }
    return this.transaction((trx) =>
      work(<Row>(query: Prepared<Row>, args: Readonly<Record<string, unknown>>) => query.run(trx, args)),
    );
  }

  /** A transaction (BEGIN IMMEDIATE on SQLite: it takes the write lock first, so never fails half way as busy). */
  private transaction<T>(work: (trx: Transaction<BotTables>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async getConnection(teamId: string): Promise<WorkspaceConnection | null> {
    if (this.pending) await this.pending;
    const row = (await this.exec(this.queries.connection, { teamId })).rows[0];
    return row ? toConnection(row) : null;
  }

  async listConnections(): Promise<WorkspaceConnection[]> {
    if (this.pending) await this.pending;
    const rows = await this.db.selectFrom('workspaces').selectAll().orderBy('team_id').execute();
    return rows.map(toConnection);
  }

  async saveConnection(connection: WorkspaceConnection): Promise<void> {
    if (this.pending) await this.pending;
    await this.db
      .insertInto('workspaces')
      .values({
        team_id: connection.teamId,
        encrypted_api_key: connection.encryptedApiKey,
        service_url: connection.serviceUrl,
        connected_by: connection.connectedBy,
        connected_at: connection.connectedAt,
      })
      .onConflict((conflict) =>
        conflict.column('team_id').doUpdateSet((eb) => ({
          encrypted_api_key: eb.ref('excluded.encrypted_api_key'),
          service_url: eb.ref('excluded.service_url'),
          connected_by: eb.ref('excluded.connected_by'),
          connected_at: eb.ref('excluded.connected_at'),
        })),
      )
      .execute();
  }

  async removeConnection(teamId: string): Promise<boolean> {
    if (this.pending) await this.pending;
    const result = await this.db.deleteFrom('workspaces').where('team_id', '=', teamId).executeTakeFirst();
    return count(result) > 0;
  }

  async queueCommand(command: CommandToQueue): Promise<void> {
    if (this.pending) await this.pending;
    await this.execGrouped(this.queries.queueCommand, {
      id: command.id,
      teamId: command.teamId ?? null,
      body: command.body,
      receivedAt: command.receivedAt.getTime(),
      owner: command.owner ?? null,
      leaseUntil: command.leaseUntil?.getTime() ?? 0,
      attempts: command.owner ? 1 : 0,
    });
  }

  async claimCommands(owner: string, now: Date, leaseMs: number, limit: number): Promise<QueuedCommand[]> {
    if (this.pending) await this.pending;
    const claimed = await this.exec(this.queries.claimCommands, {
      owner,
      now: now.getTime(),
      until: now.getTime() + leaseMs,
      limit,
    });
    return claimed.rows
      .map((row) => ({
        id: row.id,
        teamId: row.team_id,
        body: row.body,
        receivedAt: new Date(Number(row.received_at)),
        attempts: Number(row.attempts),
      }))
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async finishCommands(ids: readonly string[]): Promise<void> {
    if (this.pending) await this.pending;
    // One prepared statement whatever the count (the ids as one JSON array).
    for (let start = 0; start < ids.length; start += CHUNK) {
      await this.exec(this.queries.finishCommands, { ids: JSON.stringify(ids.slice(start, start + CHUNK)) });
    }
  }

  async renewCommands(owners: readonly string[], until: Date): Promise<void> {
    if (this.pending) await this.pending;
    if (owners.length === 0) return;
    await this.db
      .updateTable('queued_commands')
      .set({ lease_until: until.getTime() })
      .where('lease_owner', 'in', [...owners])
      .execute();
  }

  async releaseCommands(owner: string): Promise<number> {
    if (this.pending) await this.pending;
    const result = await this.db
      .updateTable('queued_commands')
      .set({ lease_owner: null, lease_until: 0 })
      .where('lease_owner', '=', owner)
      .executeTakeFirst();
    return count(result);
  }

  async queuedCommandCount(): Promise<number> {
    if (this.pending) await this.pending;
    const row = await this.db
      .selectFrom('queued_commands')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  checkpointInBackground(): void {
    this.database.checkpointInBackground?.();
  }

  async rememberRequest(id: string, expiresAt: Date, now = new Date()): Promise<boolean> {
    if (this.pending) await this.pending;
    // One statement, so atomic across copies: new, or replacing an expired entry.
    const fresh = changed(
      await this.execGrouped(this.queries.rememberRequest, {
        id,
        expiresAt: expiresAt.getTime(),
        now: now.getTime(),
      }),
    );
    // Every request is remembered: pruning on each would cost a write per request.
    if (now.getTime() - this.lastPruneMs >= SEEN_REQUESTS_PRUNE_MS) {
      this.lastPruneMs = now.getTime();
      await this.db.deleteFrom('seen_requests').where('expires_at', '<=', now.getTime()).execute();
    }
    return fresh;
  }

  async saveState(token: string, json: string, expiresAt: Date): Promise<void> {
    if (this.pending) await this.pending;
    const { queries } = this;
    await this.preparedTransaction(async (run) => {
      // Expired states are pruned as new ones are kept, so the table stays the size of 30 days' use.
      await run(queries.pruneStates, { now: Date.now() });
      await run(queries.keepState, { token, json, expiresAt: expiresAt.getTime() });
    });
  }

  async loadState(token: string, now: Date): Promise<string | null> {
    if (this.pending) await this.pending;
    const row = (await this.exec(this.queries.keptState, { token, now: now.getTime() })).rows[0];
    return row?.json ?? null;
  }

  async recordCommentAuthor(author: CommentAuthor): Promise<void> {
    if (this.pending) await this.pending;
    await this.db
      .insertInto('comment_authors')
      .values({
        team_id: author.teamId,
        comment_id: author.commentId,
        user_id: author.userId,
        created_at: author.createdAt.toISOString(),
      })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }

  async commentAuthors(teamId: string, commentIds: readonly string[]): Promise<Map<string, string>> {
    if (this.pending) await this.pending;
    const authors = new Map<string, string>();
    for (let start = 0; start < commentIds.length; start += CHUNK) {
      const rows = await this.db
        .selectFrom('comment_authors')
        .select(['comment_id', 'user_id'])
        .where('team_id', '=', teamId)
        .where('comment_id', 'in', commentIds.slice(start, start + CHUNK))
        .execute();
      for (const row of rows) authors.set(row.comment_id, row.user_id);
    }
    return authors;
  }

  async rememberPipelineMessage(message: PipelineMessage): Promise<void> {
    if (this.pending) await this.pending;
    await this.db
      .insertInto('pipeline_messages')
      .values({
        team_id: message.teamId,
        channel_id: message.channelId,
        ts: message.ts,
        pipeline_id: message.pipelineId,
        thread_ts: message.threadTs ?? null,
        remembered_at: Date.now(),
      })
      .onConflict((conflict) =>
        conflict.columns(['team_id', 'channel_id', 'ts']).doUpdateSet((eb) => ({
          pipeline_id: eb.ref('excluded.pipeline_id'),
          thread_ts: eb.ref('excluded.thread_ts'),
        })),
      )
      .execute();
  }

  async pipelineMessages(teamId: string, pipelineId: string): Promise<PipelineMessage[]> {
    if (this.pending) await this.pending;
    const rows = await this.db
      .selectFrom('pipeline_messages')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('pipeline_id', '=', pipelineId)
      .orderBy('remembered_at')
      .orderBy('channel_id')
      .orderBy('ts')
      .execute();
    return rows.map((row) => ({
      pipelineId: row.pipeline_id,
      teamId: row.team_id,
      channelId: row.channel_id,
      ts: row.ts,
      ...(row.thread_ts ? { threadTs: row.thread_ts } : {}),
    }));
  }

  async forgetPipelineMessage(teamId: string, channelId: string, ts: string): Promise<boolean> {
    if (this.pending) await this.pending;
    const result = await this.db
      .deleteFrom('pipeline_messages')
      .where('team_id', '=', teamId)
      .where('channel_id', '=', channelId)
      .where('ts', '=', ts)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async markChannelWelcomed(teamId: string, channelId: string, at: Date): Promise<boolean> {
    if (this.pending) await this.pending;
    const result = await this.db
      .insertInto('welcomed_channels')
      .values({ team_id: teamId, channel_id: channelId, welcomed_at: at.toISOString() })
      .onConflict((conflict) => conflict.doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  // Channel subscriptions (see the interface for what each step guarantees).

  async createSubscription(subscription: Subscription): Promise<boolean> {
    if (this.pending) await this.pending;
    const result = await this.db
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
    if (this.pending) await this.pending;
    const row = await this.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toSubscription(row) : null;
  }

  async channelSubscriptions(teamId: string, channelId: string): Promise<Subscription[]> {
    if (this.pending) await this.pending;
    const rows = await this.db
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
    if (this.pending) await this.pending;
    // Its deliveries and posted items go with it (ON DELETE CASCADE).
    const result = await this.db
      .deleteFrom('subscriptions')
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async pauseChannel(teamId: string, channelId: string, reason: string): Promise<Subscription[]> {
    if (this.pending) await this.pending;
    return this.transaction(async (trx) => {
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
    if (this.pending) await this.pending;
    const result = await this.db
      .updateTable('subscriptions')
      .set({ paused_reason: null, next_run_at: nextRunAt.getTime() })
      .where('team_id', '=', teamId)
      .where('id', '=', id)
      .where('paused_reason', 'is not', null)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async dueSubscriptions(now: Date, limit: number): Promise<Subscription[]> {
    if (this.pending) await this.pending;
    const rows = await this.db
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

  async planDelivery(
    subscriptionId: string,
    expectedNextRunAt: Date,
    nextRunAt: Date,
    skipped: number,
    delivery: { id: string; dueAt: Date },
  ): Promise<boolean> {
    if (this.pending) await this.pending;
    return this.preparedTransaction((run) =>
      this.planOne(run, { subscriptionId, expectedNextRunAt, nextRunAt, skipped, delivery }),
    );
  }

  async planDeliveries(plans: readonly PlannedDelivery[]): Promise<number> {
    if (this.pending) await this.pending;
    if (plans.length === 0) return 0;
    return this.preparedTransaction(async (run) => {
      let planned = 0;
      for (const plan of plans) if (await this.planOne(run, plan)) planned += 1;
      return planned;
    });
  }

  /** The compare-and-set of next_run_at and the delivery's insert (inside a transaction). */
  private async planOne(run: RunPrepared, plan: PlannedDelivery): Promise<boolean> {
    const moved = await run(this.queries.moveNextRun, {
      nextRunAt: plan.nextRunAt.getTime(),
      skipped: plan.skipped,
      id: plan.subscriptionId,
      expected: plan.expectedNextRunAt.getTime(),
    });
    if (!changed(moved)) return false;
    await run(this.queries.insertPlanned, {
      id: plan.delivery.id,
      dueAt: plan.delivery.dueAt.getTime(),
      subscriptionId: plan.subscriptionId,
    });
    return true;
  }

  async addManualDelivery(delivery: { id: string; subscriptionId: string; dueAt: Date }): Promise<boolean> {
    if (this.pending) await this.pending;
    return changed(
      await this.exec(this.queries.insertManual, {
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
  ): Promise<Delivery[]> {
    if (this.pending) await this.pending;
    const claimed = await this.exec(this.queries.claim, {
      owner,
      until: now.getTime() + leaseMs,
      now: now.getTime(),
      ready: now.getTime() + Math.max(0, aheadMs),
      busy: JSON.stringify(busyChannels),
      limit,
    });
    return claimed.rows
      .map(toDelivery)
      .sort((a, b) => a.notBefore.getTime() - b.notBefore.getTime() || a.dueAt.getTime() - b.dueAt.getTime());
  }

  async claimDelivery(
    id: string,
    owner: string,
    now: Date,
    leaseMs: number,
    aheadMs: number,
  ): Promise<{ delivery: Delivery } | { finished: true } | { notBefore: Date }> {
    if (this.pending) await this.pending;
    const nowMs = now.getTime();
    const ready = nowMs + Math.max(0, aheadMs);
    // The claim is one statement; when it fails, what is read next only says when to try again.
    const claimed = (
      await this.exec(this.queries.claimOne, { owner, until: nowMs + leaseMs, now: nowMs, ready, id })
    ).rows[0];
    if (claimed) return { delivery: toDelivery(claimed) };
    const row = await this.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || (row.state !== 'pending' && row.state !== 'working')) return { finished: true };
    // What holds it: its own time or lease, and each open delivery of its channel before it or under way.
    const holders = await this.db
      .selectFrom('deliveries')
      .select(['state', 'not_before', 'lease_until'])
      .where('team_id', '=', row.team_id)
      .where('channel_id', '=', row.channel_id)
      .where('id', '<>', id)
      .where('state', 'in', ['pending', 'working'])
      .where((eb) =>
        eb.or([
          eb('due_at', '<', row.due_at),
          eb.and([eb('due_at', '=', row.due_at), eb('id', '<', id)]),
          eb.and([eb('state', '=', 'working'), eb('lease_until', '>', nowMs)]),
          eb('posted_ts', '<>', '[]'),
          eb('attempting_part', 'is not', null),
        ]),
      )
      .execute();
    const times = [row, ...holders].map((each) =>
      each.state === 'working' ? (each.lease_until ?? 0) : each.not_before,
    );
    const latest = Math.max(...times);
    return { notBefore: new Date(latest > nowMs ? latest : nowMs + 1000) };
  }

  async openDeliveryIds(dueBy: Date, limit: number): Promise<string[]> {
    if (this.pending) await this.pending;
    const rows = await this.db
      .selectFrom('deliveries')
      .select('id')
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

  async getDelivery(id: string): Promise<Delivery | null> {
    if (this.pending) await this.pending;
    const row = await this.db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toDelivery(row) : null;
  }

  async subscriptionDeliveries(subscriptionId: string): Promise<Delivery[]> {
    if (this.pending) await this.pending;
    const rows = await this.db
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
    if (this.pending) await this.pending;
    const { queries } = this;
    return this.preparedTransaction(
      async (run): Promise<{ ok: true } | { ok: false; taken: string[]; lost: boolean }> => {
        const row = (await run(queries.ownedDelivery, { id, owner })).rows[0];
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
  ): Promise<boolean> {
    if (this.pending) await this.pending;
    return changed(
      await this.exec(this.queries.markAttempt, {
        part,
        now: now.getTime(),
        attemptUntil: (attemptUntil ?? new Date(now.getTime() + leaseMs)).getTime(),
        until: now.getTime() + leaseMs,
        id,
        owner,
      }),
    );
  }

  async recordSettleProgress(id: string, owner: string, latest: string): Promise<boolean> {
    if (this.pending) await this.pending;
    return changed(await this.exec(this.queries.settleProgress, { latest, id, owner }));
  }

  async recordPart(id: string, owner: string, part: number, ts: string): Promise<boolean> {
    if (this.pending) await this.pending;
    // Appended only in its place: a part recorded twice (a late answer) changes nothing.
    return changed(await this.exec(this.queries.recordPart, { ts, id, owner, part }));
  }

  async releaseDelivery(id: string, owner: string, notBefore: Date, keepAttempt: boolean): Promise<boolean> {
    if (this.pending) await this.pending;
    const release = keepAttempt ? this.queries.releaseKeepingAttempt : this.queries.release;
    return changed(await this.exec(release, { notBefore: notBefore.getTime(), id, owner }));
  }

  async finishDelivery(id: string, owner: string, finish: DeliveryFinish): Promise<boolean> {
    if (this.pending) await this.pending;
    const { queries } = this;
    return this.preparedTransaction(async (run) => {
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
    if (this.pending) await this.pending;
    // Which deliveries may go: the same condition for both tables, so no item outlives its delivery.
    const prunable = sql`select d.id from deliveries d
      where d.state in ('sent', 'empty', 'failed') and d.due_at < ${before.getTime()}
        and (d.state = 'failed' or exists (
          select 1 from deliveries n where n.subscription_id = d.subscription_id
            and n.state in ('sent', 'empty') and n.due_at > d.due_at))`;
    return this.transaction(async (trx) => {
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
    if (this.pending) await this.pending;
    const delivered = new Set<string>();
    for (let start = 0; start < itemKeys.length; start += CHUNK) {
      const rows = await this.db
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
    if (this.pending) await this.pending;
    const known = await this.db
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
    const rows = await this.db
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

  // Installations, personal keys and settings (see the interface).

  async saveInstallation(installation: StoredInstallation): Promise<void> {
    if (this.pending) await this.pending;
    await this.db
      .insertInto('installations')
      .values({
        install_key: installationKey(installation),
        team_id: installation.teamId,
        enterprise_id: installation.enterpriseId,
        is_enterprise_install: installation.isEnterpriseInstall ? 1 : 0,
        encrypted_installation: installation.encryptedInstallation,
        installed_at: installation.installedAt.getTime(),
      })
      .onConflict((conflict) =>
        conflict.column('install_key').doUpdateSet((eb) => ({
          team_id: eb.ref('excluded.team_id'),
          enterprise_id: eb.ref('excluded.enterprise_id'),
          is_enterprise_install: eb.ref('excluded.is_enterprise_install'),
          encrypted_installation: eb.ref('excluded.encrypted_installation'),
          installed_at: eb.ref('excluded.installed_at'),
        })),
      )
      .execute();
  }

  async findInstallation(query: InstallationQuery): Promise<StoredInstallation | null> {
    if (this.pending) await this.pending;
    for (const key of installationLookup(query)) {
      const row = (await this.exec(this.queries.installation, { key })).rows[0];
      if (row) return toInstallation(row);
    }
    return null;
  }

  async deleteInstallation(query: InstallationQuery): Promise<boolean> {
    if (this.pending) await this.pending;
    const key = installationLookup(query)[0];
    if (key === undefined) return false;
    const result = await this.db
      .deleteFrom('installations')
      .where('install_key', '=', key)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async listInstallations(): Promise<StoredInstallation[]> {
    if (this.pending) await this.pending;
    const rows = await this.db.selectFrom('installations').selectAll().orderBy('install_key').execute();
    return rows.map(toInstallation);
  }

  async savePersonalKey(key: PersonalKey): Promise<void> {
    if (this.pending) await this.pending;
    await this.db
      .insertInto('personal_keys')
      .values({
        team_id: key.teamId,
        user_id: key.userId,
        encrypted_api_key: key.encryptedApiKey,
        service_url: key.serviceUrl,
        connected_at: key.connectedAt.getTime(),
      })
      .onConflict((conflict) =>
        conflict.columns(['team_id', 'user_id']).doUpdateSet((eb) => ({
          encrypted_api_key: eb.ref('excluded.encrypted_api_key'),
          service_url: eb.ref('excluded.service_url'),
          connected_at: eb.ref('excluded.connected_at'),
        })),
      )
      .execute();
  }

  async getPersonalKey(teamId: string, userId: string): Promise<PersonalKey | null> {
    if (this.pending) await this.pending;
    const row = (await this.exec(this.queries.personalKey, { teamId, userId })).rows[0];
    return row ? toPersonalKey(row) : null;
  }

  async removePersonalKey(teamId: string, userId: string): Promise<boolean> {
    if (this.pending) await this.pending;
    const result = await this.db
      .deleteFrom('personal_keys')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return count(result) > 0;
  }

  async getWorkspaceSettings(teamId: string): Promise<WorkspaceSettings> {
    if (this.pending) await this.pending;
    const row = (await this.exec(this.queries.settings, { teamId })).rows[0];
    return { teamId, personalKeysForWrites: row?.personal_keys_for_writes === 1 };
  }

  async saveWorkspaceSettings(settings: WorkspaceSettings): Promise<void> {
    if (this.pending) await this.pending;
    await this.db
      .insertInto('workspace_settings')
      .values({ team_id: settings.teamId, personal_keys_for_writes: settings.personalKeysForWrites ? 1 : 0 })
      .onConflict((conflict) =>
        conflict
          .column('team_id')
          .doUpdateSet((eb) => ({ personal_keys_for_writes: eb.ref('excluded.personal_keys_for_writes') })),
      )
      .execute();
  }

  async removeWorkspace(teamId: string): Promise<RemovedWorkspace> {
    if (this.pending) await this.pending;
    return this.transaction(async (trx) => {
      const installations = await trx
        .deleteFrom('installations')
        .where(
          'install_key',
          '=',
          installationKey({ teamId, enterpriseId: null, isEnterpriseInstall: false }),
        )
        .executeTakeFirst();
      const connections = await trx.deleteFrom('workspaces').where('team_id', '=', teamId).executeTakeFirst();
      const personalKeys = await trx
        .deleteFrom('personal_keys')
        .where('team_id', '=', teamId)
        .executeTakeFirst();
      await trx.deleteFrom('workspace_settings').where('team_id', '=', teamId).execute();
      // Who wrote which comment and where its bid cards are shown go too; the welcome markers stay
      // (a channel is greeted once, also after the app is installed again).
      await trx.deleteFrom('comment_authors').where('team_id', '=', teamId).execute();
      await trx.deleteFrom('pipeline_messages').where('team_id', '=', teamId).execute();
      // Deliveries and delivered items go with their subscriptions (ON DELETE CASCADE).
      const subscriptions = await trx
        .deleteFrom('subscriptions')
        .where('team_id', '=', teamId)
        .executeTakeFirst();
      return {
        installations: count(installations),
        connections: count(connections),
        personalKeys: count(personalKeys),
        subscriptions: count(subscriptions),
      };
    });
  }

  async listSecrets(): Promise<StoredSecret[]> {
    if (this.pending) await this.pending;
    const connections = await this.db
      .selectFrom('workspaces')
      .select(['team_id', 'encrypted_api_key'])
      .execute();
    const installations = await this.db
      .selectFrom('installations')
      .select(['install_key', 'encrypted_installation'])
      .execute();
    const personalKeys = await this.db
      .selectFrom('personal_keys')
      .select(['team_id', 'user_id', 'encrypted_api_key'])
      .execute();
    return [
      ...connections.map(
        (row): StoredSecret => ({ kind: 'connection', ref: row.team_id, encrypted: row.encrypted_api_key }),
      ),
      ...installations.map(
        (row): StoredSecret => ({
          kind: 'installation',
          ref: row.install_key,
          encrypted: row.encrypted_installation,
        }),
      ),
      ...personalKeys.map(
        (row): StoredSecret => ({
          kind: 'personal-key',
          ref: JSON.stringify([row.team_id, row.user_id]),
          encrypted: row.encrypted_api_key,
        }),
      ),
    ];
  }

  async replaceSecret(secret: StoredSecret, next: string): Promise<boolean> {
    if (this.pending) await this.pending;
    switch (secret.kind) {
      case 'connection':
        return (
          count(
            await this.db
              .updateTable('workspaces')
              .set({ encrypted_api_key: next })
              .where('team_id', '=', secret.ref)
              .where('encrypted_api_key', '=', secret.encrypted)
              .executeTakeFirst(),
          ) > 0
        );
      case 'installation':
        return (
          count(
            await this.db
              .updateTable('installations')
              .set({ encrypted_installation: next })
              .where('install_key', '=', secret.ref)
              .where('encrypted_installation', '=', secret.encrypted)
              .executeTakeFirst(),
          ) > 0
        );
      case 'personal-key': {
        const [teamId, userId] = personalKeyRef(secret.ref);
        return (
          count(
            await this.db
              .updateTable('personal_keys')
              .set({ encrypted_api_key: next })
              .where('team_id', '=', teamId)
              .where('user_id', '=', userId)
              .where('encrypted_api_key', '=', secret.encrypted)
              .executeTakeFirst(),
          ) > 0
        );
      }
    }
  }

  async ping(): Promise<void> {
    if (this.pending) await this.pending;
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.database.close();
  }
}

/** The queries compiled once per store: those on every request and on the scheduler's path. */
function prepareQueries({
  kind,
  db,
  jsonStrings,
  jsonItems,
  appendPostedTs,
  postedTsLength,
  lockSkippingLocked,
}: BotDatabase) {
  const open = (alias: string) => sql.raw(alias);
  /** A delivery that may be claimed now: pending and ready, or working with a lease that ended. */
  const claimable = (alias: string) =>
    sql`((${open(alias)}.state = 'pending' and ${open(alias)}.not_before <= ${slot('ready')})
      or (${open(alias)}.state = 'working' and ${open(alias)}.lease_until <= ${slot('now')}))`;
  const compiled = <Row>(query: { compile(executor: Kysely<BotTables>): CompiledQuery<Row> }) => ({
    compile: () => query.compile(db),
  });
  return {
    connection: new Prepared(
      db.selectFrom('workspaces').selectAll().where('team_id', '=', slot<string>('teamId')),
    ),
    installation: new Prepared(
      db.selectFrom('installations').selectAll().where('install_key', '=', slot<string>('key')),
    ),
    personalKey: new Prepared(
      db
        .selectFrom('personal_keys')
        .selectAll()
        .where('team_id', '=', slot<string>('teamId'))
        .where('user_id', '=', slot<string>('userId')),
    ),
    settings: new Prepared(
      db
        .selectFrom('workspace_settings')
        .select('personal_keys_for_writes')
        .where('team_id', '=', slot<string>('teamId')),
    ),
    rememberRequest: new Prepared(
      db
        .insertInto('seen_requests')
        .values({ id: slot('id'), expires_at: slot('expiresAt') })
        .onConflict((conflict) =>
          conflict
            .column('id')
            .doUpdateSet((eb) => ({ expires_at: eb.ref('excluded.expires_at') }))
            .where('seen_requests.expires_at', '<=', slot<number>('now')),
        ),
    ),
    queueCommand: new Prepared(
      db.insertInto('queued_commands').values({
        id: slot('id'),
        team_id: slot('teamId'),
        body: slot('body'),
        received_at: slot('receivedAt'),
        lease_owner: slot('owner'),
        lease_until: slot('leaseUntil'),
        attempts: slot('attempts'),
      }),
    ),
    claimCommands: new Prepared<Selectable<BotTables['queued_commands']>>(
      compiled(
        sql<Selectable<BotTables['queued_commands']>>`update queued_commands
          set lease_owner = ${slot('owner')}, lease_until = ${slot('until')}, attempts = attempts + 1
        where id in (
          select id from queued_commands where lease_until <= ${slot('now')}
          order by id limit ${slot('limit')} ${lockSkippingLocked}
        ) and lease_until <= ${slot('now')}
        returning *`,
      ),
    ),
    finishCommands: new Prepared(
      db.deleteFrom('queued_commands').where('id', 'in', jsonStrings(slot('ids'))),
    ),
    pruneStates: new Prepared(db.deleteFrom('kept_states').where('expires_at', '<=', slot<number>('now'))),
    keepState: new Prepared(
      db
        .insertInto('kept_states')
        .values({ token: slot('token'), json: slot('json'), expires_at: slot('expiresAt') })
        .onConflict((conflict) =>
          conflict.column('token').doUpdateSet((eb) => ({
            json: eb.ref('excluded.json'),
            expires_at: eb.ref('excluded.expires_at'),
          })),
        ),
    ),
    keptState: new Prepared(
      db
        .selectFrom('kept_states')
        .select('json')
        .where('token', '=', slot<string>('token'))
        .where('expires_at', '>', slot<number>('now')),
    ),
    moveNextRun: new Prepared(
      db
        .updateTable('subscriptions')
        .set((eb) => ({
          next_run_at: slot<number>('nextRunAt'),
          skipped_count: eb('skipped_count', '+', slot<number>('skipped')),
        }))
        .where('id', '=', slot<string>('id'))
        .where('next_run_at', '=', slot<number>('expected'))
        .where('paused_reason', 'is', null),
    ),
    insertPlanned: new Prepared(plannedInsert(db, 0)),
    insertManual: new Prepared(plannedInsert(db, 1)),
    // One statement: two copies never claim one row (SQLite writes one statement at a time; on
    // PostgreSQL the picked rows are locked, those another copy holds skipped, and each row is
    // checked again as it is written). A channel takes one delivery at a time, in order, and none
    // while another copy is posting there or a split post is half sent (its parts stay together).
    claim: new Prepared<DeliveryRow>(
      compiled(
        sql<DeliveryRow>`update deliveries set state = 'working', lease_owner = ${slot('owner')},
          lease_until = ${slot('until')}, attempts = attempts + 1
        where id in (
          select l.id from deliveries l where l.id in (
            select id from (
              select d.id, d.not_before, d.due_at,
                row_number() over (partition by d.team_id, d.channel_id order by d.due_at, d.id) as place
              from deliveries d
              where ${claimable('d')}
                and d.channel_id not in ${jsonStrings(slot('busy'))}
                and not exists (
                  select 1 from deliveries o
                  where o.team_id = d.team_id and o.channel_id = d.channel_id and o.id <> d.id
                    and o.state in ('pending', 'working')
                    and ((o.state = 'working' and o.lease_until > ${slot('now')})
                      or o.posted_ts <> '[]' or o.attempting_part is not null))
            ) ranked
            where place = 1
            order by not_before, due_at, id
            limit ${slot('limit')}
          ) ${lockSkippingLocked}
        ) and ${claimable('deliveries')}
        returning *`,
      ),
    ),
    // claimDeliveries' rules for one id: the first open delivery of its channel, none there under way.
    claimOne: new Prepared<DeliveryRow>(
      compiled(
        sql<DeliveryRow>`update deliveries set state = 'working', lease_owner = ${slot('owner')},
          lease_until = ${slot('until')}, attempts = attempts + 1
        where id = ${slot('id')} and ${claimable('deliveries')}
          and not exists (
            select 1 from deliveries o
            where o.team_id = deliveries.team_id and o.channel_id = deliveries.channel_id
              and o.id <> deliveries.id and o.state in ('pending', 'working')
              and (o.due_at < deliveries.due_at or (o.due_at = deliveries.due_at and o.id < deliveries.id)
                or (o.state = 'working' and o.lease_until > ${slot('now')})
                or o.posted_ts <> '[]' or o.attempting_part is not null))
        returning *`,
      ),
    ),
    ownedDelivery: new Prepared(
      db
        .selectFrom('deliveries')
        .select('subscription_id')
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working'),
    ),
    lockSubscription:
      kind === 'postgres'
        ? new Prepared(
            db.selectFrom('subscriptions').select('id').where('id', '=', slot<string>('id')).forUpdate(),
          )
        : null,
    takenItems: new Prepared(
      db
        .selectFrom('delivered_items')
        .select('item_key')
        .where('subscription_id', '=', slot<string>('subscriptionId'))
        .where('delivery_id', '<>', slot<string>('id'))
        .where(sql<SqlBool>`item_key in ${jsonStrings(slot('keys'))}`),
    ),
    reserveItems: new Prepared(
      compiled(
        sql`insert into delivered_items (subscription_id, item_key, delivery_id, position, listing)
          select ${slot('subscriptionId')}, item_key, ${slot('id')}, position, listing
          from ${jsonItems(slot('items'))} as items where true
          on conflict do nothing`,
      ),
    ),
    setFrozen: new Prepared(
      db
        .updateTable('deliveries')
        .set({ frozen: slot('frozen') })
        .where('id', '=', slot<string>('id')),
    ),
    markAttempt: new Prepared(
      db
        .updateTable('deliveries')
        .set({
          attempting_part: slot('part'),
          attempt_at: slot('now'),
          attempt_until: slot('attemptUntil'),
          // A new attempt has a window of its own, not read yet.
          settle_latest: null,
          lease_until: slot('until'),
        })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working'),
    ),
    settleProgress: new Prepared(
      db
        .updateTable('deliveries')
        .set({ settle_latest: slot('latest') })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where('attempting_part', 'is not', null),
    ),
    recordPart: new Prepared(
      db
        .updateTable('deliveries')
        .set({ posted_ts: appendPostedTs(slot('ts')), attempting_part: null })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where(postedTsLength, '=', slot<number>('part')),
    ),
    release: new Prepared(releaseQuery(db, false)),
    releaseKeepingAttempt: new Prepared(releaseQuery(db, true)),
    finishWithPart: new Prepared(
      db
        .updateTable('deliveries')
        .set({
          posted_ts: appendPostedTs(slot('ts')),
          state: slot('state'),
          outcome: slot('outcome'),
          lease_until: null,
          attempting_part: null,
        })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .where(postedTsLength, '=', slot<number>('part'))
        .returning('subscription_id'),
    ),
    finish: new Prepared(
      db
        .updateTable('deliveries')
        .set({ state: slot('state'), outcome: slot('outcome'), lease_until: null, attempting_part: null })
        .where('id', '=', slot<string>('id'))
        .where('lease_owner', '=', slot<string>('owner'))
        .where('state', '=', 'working')
        .returning('subscription_id'),
    ),
    freeItems: new Prepared(db.deleteFrom('delivered_items').where('delivery_id', '=', slot<string>('id'))),
    moveCursor: new Prepared(
      db
        .updateTable('subscriptions')
        .set({ cursor: slot('cursor'), cursor_at: slot('at') })
        .where('id', '=', slot<string>('id'))
        .where((eb) => eb.or([eb('cursor_at', 'is', null), eb('cursor_at', '<', slot<number>('at'))])),
    ),
    skippedSaid: new Prepared(
      db
        .updateTable('subscriptions')
        .set({
          skipped_count: sql<number>`case when skipped_count > ${slot('said')} then skipped_count - ${slot('said')} else 0 end`,
        })
        .where('id', '=', slot<string>('id')),
    ),
  };
}

/** A delivery of a subscription, copied from its row (a no-op when one exists for that due time). */
function plannedInsert(db: Kysely<BotTables>, manual: 0 | 1) {
  return db
    .insertInto('deliveries')
    .columns(['id', 'subscription_id', 'team_id', 'channel_id', 'due_at', 'manual', 'state', 'not_before'])
    .expression(
      db
        .selectFrom('subscriptions')
        .select((eb) => [
          // Cast: PostgreSQL types a bare parameter in a select list as text.
          eb.cast<string>(eb.val(slot<string>('id')), 'text').as('delivery_id'),
          'id',
          'team_id',
          'channel_id',
          eb.cast<number>(eb.val(slot<number>('dueAt')), 'bigint').as('due_at'),
          eb.lit(manual).as('manual'),
          sql.lit('pending').as('state'),
          eb.cast<number>(eb.val(slot<number>('dueAt')), 'bigint').as('not_before'),
        ])
        .where('id', '=', slot<string>('subscriptionId')),
    )
    .onConflict((conflict) => conflict.doNothing());
}

function releaseQuery(db: Kysely<BotTables>, keepAttempt: boolean) {
  return db
    .updateTable('deliveries')
    .set({
      state: 'pending',
      lease_owner: null,
      lease_until: null,
      not_before: slot('notBefore'),
      ...(keepAttempt ? {} : { attempting_part: null }),
    })
    .where('id', '=', slot<string>('id'))
    .where('lease_owner', '=', slot<string>('owner'))
    .where('state', '=', 'working');
}

/** One row per workspace install, one per enterprise for an org-wide install. */
function installationKey(query: InstallationQuery): string {
  if (query.isEnterpriseInstall) {
    if (query.enterpriseId === null) throw new Error('an org-wide installation needs its enterprise id');
    return `enterprise:${query.enterpriseId}`;
  }
  if (query.teamId === null) throw new Error('a workspace installation needs its team id');
  return `team:${query.teamId}`;
}

/** The rows to look in, in order: the one the query names, then its enterprise's org-wide install. */
function installationLookup(query: InstallationQuery): string[] {
  const keys: string[] = [];
  if (query.isEnterpriseInstall ? query.enterpriseId !== null : query.teamId !== null)
    keys.push(installationKey(query));
  if (!query.isEnterpriseInstall && query.enterpriseId !== null)
    keys.push(installationKey({ ...query, isEnterpriseInstall: true }));
  return keys;
}

/** A personal key's secret ref is `[teamId, userId]` as JSON. */
function personalKeyRef(ref: string): [string, string] {
  const parsed: unknown = JSON.parse(ref);
  if (!Array.isArray(parsed) || parsed.length !== 2 || !parsed.every((part) => typeof part === 'string'))
    throw new Error('not a personal key reference');
  return parsed as [string, string];
}

function toConnection(row: WorkspaceRow): WorkspaceConnection {
  return {
    teamId: row.team_id,
    encryptedApiKey: row.encrypted_api_key,
    serviceUrl: row.service_url,
    connectedBy: row.connected_by,
    connectedAt: row.connected_at,
  };
}

function toInstallation(row: InstallationRow): StoredInstallation {
  return {
    teamId: row.team_id,
    enterpriseId: row.enterprise_id,
    isEnterpriseInstall: row.is_enterprise_install === 1,
    encryptedInstallation: row.encrypted_installation,
    installedAt: new Date(row.installed_at),
  };
}

function toPersonalKey(row: PersonalKeyRow): PersonalKey {
  return {
    teamId: row.team_id,
    userId: row.user_id,
    encryptedApiKey: row.encrypted_api_key,
    serviceUrl: row.service_url,
    connectedAt: new Date(row.connected_at),
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
