import { type CompiledQuery, type Kysely, type QueryResult, sql, type Transaction } from 'kysely';
import type { BotDatabase } from './bot-database.ts';
import type { BotTables } from './bot-schema.ts';
import { nameStatement } from './statement-names.ts';
import type { StoreLifecycle } from './store-lifecycle.ts';

/** Ids per `IN (…)`: well under either database's limit on bound parameters, and few statement shapes. */
export const CHUNK = 100;

/** A named placeholder in a query compiled once; bound by name on each run. */
class Slot {
  constructor(readonly name: string) {}
}
export const slot = <T>(name: string): T => new Slot(name) as unknown as T;

/**
 * A query Kysely builds and compiles once (the scheduler runs some of these for every post):
 * each run only binds its values, and SQLite's statement for its text is prepared once too.
 */
export class Prepared<Row> {
  private readonly compiled: CompiledQuery<Row>;
  private readonly values: ((args: Readonly<Record<string, unknown>>) => unknown)[];

  constructor(query: { compile(): CompiledQuery<Row> }) {
    this.compiled = query.compile();
    nameStatement(this.compiled.sql);
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

/** Runs a prepared query inside a transaction (see SharedDatabase.preparedTransaction). */
export type RunPrepared = <Row>(
  query: Prepared<Row>,
  args: Readonly<Record<string, unknown>>,
) => Promise<QueryResult<Row>>;

/** Raw SQL made a Prepared's input: compiled on the store's Kysely when prepared. */
export const compiledOn =
  (db: Kysely<BotTables>) =>
  <Row>(query: { compile(executor: Kysely<BotTables>): CompiledQuery<Row> }) => ({
    compile: () => query.compile(db),
  });

export const changed = (result: { numAffectedRows?: bigint }): boolean => (result.numAffectedRows ?? 0n) > 0n;
/** Rows a delete or update changed. */
export const count = (result: { numDeletedRows: bigint } | { numUpdatedRows: bigint }): number =>
  Number('numDeletedRows' in result ? result.numDeletedRows : result.numUpdatedRows);

/**
 * The one database every aggregate store of a BotStore shares, with the ways its queries run.
 * Every store method awaits `pending` first (when set), then runs one statement or one transaction.
 */
export class SharedDatabase {
  readonly db: Kysely<BotTables>;
  /** Until PostgreSQL's schema is up to date; null once it is (SQLite's is at open). */
  pending: Promise<void> | null;

  constructor(readonly database: BotDatabase) {
    this.db = database.db;
    this.pending = database.kind === 'sqlite' ? null : database.ready;
    database.ready.then(
      () => {
        this.pending = null;
      },
      () => {},
    );
  }

  /** One of the prepared queries on its own (not in a transaction). */
  exec<Row>(query: Prepared<Row>, args: Readonly<Record<string, unknown>>): Promise<QueryResult<Row>> {
    return query.run(this.db, args, this.database.runNow);
  }

  /**
   * One of the prepared queries on its own, committed with others asked for at the same moment
   * where the database can (SQLite's group commit): for the writes every request makes.
   */
  execGrouped<Row>(query: Prepared<Row>, args: Readonly<Record<string, unknown>>): Promise<QueryResult<Row>> {
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
  preparedTransaction<T>(work: (run: RunPrepared) => Promise<T>): Promise<T> {
    const { transactNow } = this.database;
    if (transactNow) return transactNow((direct) => work(runningDirectly(direct)));
    return this.transaction((trx) => work(runningOn(trx)));
  }

  /**
   * One of the scheduler's writes that a crash of the database may lose without harm (see
   * BotDatabase.recoverableDb): on PostgreSQL through the connections that do not wait for the
   * log's flush, on SQLite committed with the others of the moment (execGrouped). Never for the
   * attempt mark, whose synchronous commit is what flushes these before a post goes out.
   */
  execRecoverable<Row>(
    query: Prepared<Row>,
    args: Readonly<Record<string, unknown>>,
  ): Promise<QueryResult<Row>> {
    const { recoverableDb } = this.database;
    return recoverableDb ? query.run(recoverableDb, args) : this.execGrouped(query, args);
  }

  /**
   * A transaction of such writes: on PostgreSQL recoverableDb's; on SQLite committed with the other
   * statements and transactions asked for at the same moment, all or nothing on its own (a
   * savepoint), durable when it resolves.
   */
  recoverableTransaction<T>(work: (run: RunPrepared) => Promise<T>): Promise<T> {
    const { recoverableDb } = this.database;
    if (recoverableDb) return recoverableDb.transaction().execute((trx) => work(runningOn(trx)));
    return this.groupedTransaction(work);
  }

  /**
   * A transaction of prepared queries for what every request writes: on SQLite committed with the
   * statements and transactions asked for at the same moment, all or nothing on its own (a
   * savepoint); elsewhere a transaction of its own. Durable when it resolves.
   */
  groupedTransaction<T>(work: (run: RunPrepared) => Promise<T>): Promise<T> {
    const { transactBatched } = this.database;
    if (transactBatched) return transactBatched((direct) => work(runningDirectly(direct)));
    return this.preparedTransaction(work);
  }

  /** A transaction (BEGIN IMMEDIATE on SQLite: it takes the write lock first, so never fails half way as busy). */
  transaction<T>(work: (trx: Transaction<BotTables>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }
}

/** The shared database's own answers (one per BotStore, beside the aggregate stores). */
export class KyselyStoreLifecycle implements StoreLifecycle {
  constructor(private readonly base: SharedDatabase) {}

  checkpointInBackground(): void {
    this.base.database.checkpointInBackground?.();
  }

  async ping(): Promise<void> {
    if (this.base.pending) await this.base.pending;
    await sql`select 1`.execute(this.base.db);
  }

  async close(): Promise<void> {
    await this.base.database.close();
  }
}

/** RunPrepared inside a Kysely transaction. */
function runningOn(trx: Transaction<BotTables>): RunPrepared {
  return <Row>(query: Prepared<Row>, args: Readonly<Record<string, unknown>>) => query.run(trx, args);
}

/** RunPrepared on SQLite's connection, held by the caller (each statement run at once). */
function runningDirectly(direct: (query: CompiledQuery) => QueryResult<unknown>): RunPrepared {
  return <Row>(query: Prepared<Row>, args: Readonly<Record<string, unknown>>) =>
    Promise.resolve(direct(query.bind(args)) as QueryResult<Row>);
}
