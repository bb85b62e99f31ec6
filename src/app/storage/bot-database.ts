import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type SqliteDatabase as KyselySqliteDatabase,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type QueryResult,
  type RawBuilder,
  SqliteDialect,
  SqliteDriver,
  sql,
} from 'kysely';
import pg from 'pg';
import { openSqliteConnection, type SqliteDatabase, StatementCache } from '../../shared/sqlite.ts';
import { type BotTables, type DatabaseKind, migrateBotPostgres, migrateBotSqlite } from './bot-schema.ts';
import { renameStatements, statementName } from './statement-names.ts';

/**
 * The bot's database as the store uses it: Kysely over one dialect, the few SQL fragments the two
 * databases spell differently, and whatever must finish before the first query (PostgreSQL's
 * migrations run on its first connection; SQLite's have run by the time this is returned).
 */
export interface BotDatabase {
  kind: DatabaseKind;
  db: Kysely<BotTables>;
  /** Resolves when the schema is up to date (rejects with why not). */
  ready: Promise<void>;
  /** Strings of a JSON array (a bound parameter), as a one-column subquery for `IN`. */
  jsonStrings(json: unknown): RawBuilder<string>;
  /** Rows (item_key, listing, position) of a JSON array of `[key, listing, position]` (a bound parameter). */
  jsonItems(json: unknown): RawBuilder<{ item_key: string; listing: string | null; position: number }>;
  /** `posted_ts` (a JSON array of strings) with `value` appended. */
  appendPostedTs(value: unknown): RawBuilder<string>;
  /** The number of parts in `posted_ts`. */
  postedTsLength: RawBuilder<number>;
  /**
   * SQLite only: runs one compiled statement at once on the connection when nothing of Kysely's
   * holds it (so it is outside any transaction, committed on its own, exactly as through Kysely),
   * skipping Kysely's asynchronous connection hand-over (about 4 µs of CPU per statement, several
   * per scheduled post); null when the connection is held (then go through Kysely, which queues).
   */
  runNow?: (query: CompiledQuery) => QueryResult<unknown> | null;
  /**
   * SQLite only: `work` in one BEGIN IMMEDIATE … COMMIT (ROLLBACK when it throws), holding Kysely's
   * connection throughout so nothing else runs inside it, its statements run directly (as runNow).
   */
  transactNow?: <T>(work: (run: (query: CompiledQuery) => QueryResult<unknown>) => Promise<T>) => Promise<T>;
  /**
   * SQLite only: one statement, committed before it resolves, together with the others asked for
   * in the same turn of the event loop (one BEGIN IMMEDIATE … COMMIT for all: group commit). Each
   * resolves with its own result, or rejects with its own statement's error; if the commit fails,
   * all reject. For the receiver's writes, one or two for every request Slack sends. Only for
   * statements that change all or nothing (one row each): one that kept part of its changes on
   * failing (OR FAIL) or failed only at COMMIT (a deferred foreign key) would break the promise.
   */
  runBatched?: (query: CompiledQuery) => Promise<QueryResult<unknown>>;
  /**
   * SQLite only: `work` (several statements, all or none) committed with the statements and other
   * work asked for in the same turn of the event loop, as runBatched, inside a savepoint of its own:
   * when it throws, its statements are undone and it rejects, the others commit. For the
   * scheduler's finish of a post (a row, a cursor): a commit of its own cost as much as the rest.
   */
  transactBatched?: <T>(
    work: (run: (query: CompiledQuery) => QueryResult<unknown>) => Promise<T>,
  ) => Promise<T>;
  /**
   * SQLite only: the write-ahead log is copied into the database file by a thread of its own
   * (CHECKPOINT_EVERY_MS) instead of by this connection as it commits, so a checkpoint's fsync
   * never stalls the event loop. Until the store is closed.
   */
  checkpointInBackground?: () => void;
  /**
   * PostgreSQL only: the same database through connections that commit without waiting for the
   * write-ahead log to reach the disk (synchronous_commit off). For the scheduler's writes that a
   * crash of the database may lose without harm: each is flushed by the synchronous commit of the
   * attempt mark before anything is posted (one log, flushed in order), or settled from the
   * channel's history after it (see SharedDatabase.execRecoverable). A lost finish is settled like
   * a lost answer: where history cannot be read (no history scopes), that post goes out again. A
   * claim lost while its copy still works on it may be handed to the same copy again: the
   * scheduler never starts a second run beside the first (Scheduler.fill).
   */
  recoverableDb?: Kysely<BotTables>;
  /** Locks the rows a claim picked so another copy skips them (PostgreSQL; SQLite writes one at a time). */
  lockSkippingLocked: RawBuilder<unknown>;
  close(): Promise<void>;
}

/** SQLite's transactions take the write lock at BEGIN, so a read-then-write never fails half way as busy. */
class ImmediateSqliteDriver extends SqliteDriver {
  /** Whether a query or transaction of Kysely's has the connection now. */
  held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.held = true;
    return connection;
  }

  override async releaseConnection(): Promise<void> {
    this.held = false;
    await super.releaseConnection();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly driver: ImmediateSqliteDriver;

  constructor(database: KyselySqliteDatabase) {
    super({ database });
    this.driver = new ImmediateSqliteDriver({ database });
  }

  override createDriver(): Driver {
    return this.driver;
  }
}

interface SharedSqlite {
  db: Kysely<BotTables>;
  runNow: NonNullable<BotDatabase['runNow']>;
  transactNow: NonNullable<BotDatabase['transactNow']>;
  runBatched: NonNullable<BotDatabase['runBatched']>;
  transactBatched: NonNullable<BotDatabase['transactBatched']>;
  checkpointInBackground?: () => void;
  checkpointer: Worker | null;
  users: number;
}

/**
 * One connection per SQLite file in this process, shared by every store opened on it. Kysely runs
 * one query at a time on it, so two copies of the app in one process (the tests run several) take
 * turns instead of one waiting synchronously in the busy handler for a lock the other, on the same
 * thread, cannot release. Other processes on the file still wait on the file lock as before.
 */
const sharedSqlite = new Map<string, SharedSqlite>();

export function openSqliteBotDatabase(path: string): BotDatabase {
  const key = path === ':memory:' ? null : resolve(path);
  let shared = key === null ? undefined : sharedSqlite.get(key);
  if (!shared) {
    const raw = openSqliteConnection(path);
    const statements = new StatementCache(raw);
    const dialect = new ImmediateSqliteDialect(cachedStatements(raw, statements));
    const db = new Kysely<BotTables>({ dialect });
    try {
      migrateBotSqlite(raw, db);
    } catch (error) {
      raw.close();
      throw error;
    }
    const direct = (query: CompiledQuery): QueryResult<unknown> => {
      const statement = statements.prepare(query.sql);
      if (statement.reader) return { rows: statement.all(query.parameters) };
      const { changes } = statement.run(query.parameters);
      return { numAffectedRows: BigInt(changes), rows: [] };
    };
    const runNow = (query: CompiledQuery): QueryResult<unknown> | null =>
      dialect.driver.held ? null : direct(query);
    const transactNow = async <T>(
      work: (run: (query: CompiledQuery) => QueryResult<unknown>) => Promise<T>,
    ): Promise<T> => {
      // Taken as Kysely takes it: after the queries and transactions already waiting for it.
      await dialect.driver.acquireConnection();
      try {
        statements.run('BEGIN IMMEDIATE', []);
        let result: T;
        try {
          result = await work(direct);
          statements.run('COMMIT', []);
        } catch (error) {
          if (raw.inTransaction) statements.run('ROLLBACK', []);
          throw error;
        }
        return result;
      } finally {
        await dialect.driver.releaseConnection();
      }
    };
    const grouped = groupCommit(raw, runNow, transactNow);
    shared = {
      db,
      runNow,
      transactNow,
      runBatched: grouped.statement,
      transactBatched: grouped.work,
      checkpointer: null,
      users: 0,
    };
    const opening = shared;
    shared.checkpointInBackground = () => {
      if (opening.checkpointer || key === null) return;
      raw.pragma('wal_autocheckpoint = 0');
      opening.checkpointer = startCheckpointer(key, () => {
        // The thread ended (it failed, or the store closed): this connection checkpoints again
        // as it commits, so the log never grows without end.
        opening.checkpointer = null;
        if (raw.open) raw.pragma('wal_autocheckpoint = 1000');
      });
    };
    if (key !== null) sharedSqlite.set(key, shared);
  }
  shared.users += 1;
  const opened = shared;
  let closed = false;
  return {
    kind: 'sqlite',
    db: opened.db,
    ready: Promise.resolve(),
    runNow: opened.runNow,
    transactNow: opened.transactNow,
    runBatched: opened.runBatched,
    transactBatched: opened.transactBatched,
    ...(opened.checkpointInBackground ? { checkpointInBackground: opened.checkpointInBackground } : {}),
    jsonStrings: (json) => sql<string>`(select value from json_each(${json}))`,
    jsonItems: (json) =>
      sql`(select json_extract(value, '$[0]') as item_key, json_extract(value, '$[1]') as listing,
        json_extract(value, '$[2]') as position from json_each(${json}))`,
    appendPostedTs: (value) => sql<string>`json_insert(posted_ts, '$[#]', ${value})`,
    postedTsLength: sql<number>`json_array_length(posted_ts)`,
    lockSkippingLocked: sql``,
    close: async () => {
      if (closed) return;
      closed = true;
      opened.users -= 1;
      if (opened.users > 0) return;
      if (key !== null) sharedSqlite.delete(key);
      await opened.checkpointer?.terminate();
      await opened.db.destroy();
    },
  };
}

type Run = (query: CompiledQuery) => QueryResult<unknown>;

/** A statement or a unit of work waiting for the turn's commit. */
type Batched =
  | {
      query: CompiledQuery;
      resolve: (result: QueryResult<unknown>) => void;
      reject: (error: unknown) => void;
    }
  | {
      work: (run: Run) => Promise<unknown>;
      resolve: (result: unknown) => void;
      reject: (error: unknown) => void;
    };

const SAVEPOINT = CompiledQuery.raw('SAVEPOINT batched_work');
const RELEASE = CompiledQuery.raw('RELEASE batched_work');
const ROLLBACK_TO = CompiledQuery.raw('ROLLBACK TO batched_work');

/**
 * BotDatabase.runBatched and transactBatched on one connection. Statements and units of work asked
 * for while a turn of the event loop runs (the requests that arrived together, the posts that
 * finished together) are run at its end in one transaction: a commit costs as much as a small
 * insert, and the receiver makes one or two for every request, the scheduler one for every post.
 */
function groupCommit(
  raw: SqliteDatabase,
  runNow: NonNullable<BotDatabase['runNow']>,
  transactNow: NonNullable<BotDatabase['transactNow']>,
): { statement: NonNullable<BotDatabase['runBatched']>; work: NonNullable<BotDatabase['transactBatched']> } {
  let waiting: Batched[] = [];
  const flush = async () => {
    const batch = waiting;
    waiting = [];
    const only = batch.length === 1 ? batch[0] : undefined;
    if (only && 'query' in only) {
      // Alone: committed on its own, as any statement outside a transaction.
      try {
        const result = runNow(only.query);
        if (result) {
          only.resolve(result);
          return;
        }
      } catch (error) {
        only.reject(error);
        return;
      }
    }
    const outcomes: ({ ok: true; result: unknown } | { ok: false; error: unknown })[] = [];
    try {
      await transactNow(async (run) => {
        for (const [index, item] of batch.entries()) {
          try {
            if ('query' in item) outcomes[index] = { ok: true, result: run(item.query) };
            else {
              run(SAVEPOINT);
              try {
                outcomes[index] = { ok: true, result: await item.work(run) };
              } catch (error) {
                if (raw.inTransaction) run(ROLLBACK_TO);
                throw error;
              } finally {
                if (raw.inTransaction) run(RELEASE);
              }
            }
          } catch (error) {
            // A constraint undoes its own statement only (a unit its own savepoint); an error that
            // ended the transaction (SQLite rolls back on some) undoes the others too: all fail then.
            if (!raw.inTransaction) throw error;
            outcomes[index] = { ok: false, error };
          }
          // A unit that caught an error which ended the transaction would leave the rest to commit
          // one by one, outside it: all fail instead.
          if (!raw.inTransaction) throw new Error('a batched statement ended the transaction');
        }
      });
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, index) => {
      const outcome = outcomes[index];
      if (outcome?.ok) item.resolve(outcome.result as QueryResult<unknown>);
      else item.reject(outcome?.error);
    });
  };
  const add = (item: Batched) => {
    waiting.push(item);
    if (waiting.length === 1) setImmediate(() => void flush());
  };
  return {
    statement: (query) => new Promise((resolve, reject) => add({ query, resolve, reject })),
    work: <T>(work: (run: Run) => Promise<T>) =>
      new Promise<T>((resolve, reject) =>
        add({ work, resolve: resolve as (result: unknown) => void, reject }),
      ),
  };
}

/** How often the background thread copies the write-ahead log into the database. */
export const CHECKPOINT_EVERY_MS = 250;

/**
 * A thread with its own connection to the file that checkpoints it (PASSIVE: it waits for nobody,
 * and writers go on appending meanwhile). Plain CommonJS evaluated in the thread, so it needs no
 * TypeScript loader there.
 */
function startCheckpointer(path: string, ended: () => void): Worker {
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
    const Database = require(workerData.driver);
    const db = new Database(workerData.path);
    db.pragma('busy_timeout = 5000');
    setInterval(() => {
      try {
        db.pragma('wal_checkpoint(PASSIVE)');
      } catch {}
    }, workerData.everyMs);`,
    {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        path,
        everyMs: CHECKPOINT_EVERY_MS,
      },
    },
  );
  worker.on('error', () => undefined);
  worker.on('exit', ended);
  worker.unref();
  return worker;
}

/** Each distinct SQL text is prepared once (Kysely would prepare it on every query). */
function cachedStatements(raw: SqliteDatabase, statements: StatementCache): KyselySqliteDatabase {
  return {
    prepare: (text: string) =>
      statements.prepare(text) as unknown as ReturnType<KyselySqliteDatabase['prepare']>,
    close: () => raw.close(),
  };
}

/** int8 (bigint columns, count(*)) read as numbers: the store keeps epoch milliseconds, well within 2^53. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * `pool` as Kysely uses it, its clients running the store's prepared queries as named statements
 * (statement-names.ts), once per connection; everything else as before.
 */
function namingStatements(pool: pg.Pool): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    // pg's pool listens for a client's errors only while it is idle: one the server drops while a
    // query or transaction holds it (between two statements) would end the process. Heard here,
    // the next statement on it fails instead, and the pool drops it when it comes back.
    client.on('error', () => {});
    const run = async (text: string, values: unknown[]) => {
      const name = statementName(text);
      if (name === undefined) return client.query(text, values);
      try {
        return await client.query({ name, text, values });
      } catch (error) {
        if (!isStaleStatement(error)) throw error;
        // Inside a transaction the refusal has ended it, so this fails too and the transaction
        // fails once; the next runs under the new names.
        renameStatements();
        return client.query(text, values);
      }
    };
    return {
      query: ((query: string | object, values?: readonly unknown[]) =>
        typeof query === 'string'
          ? run(query, [...(values ?? [])])
          : client.query(query as never)) as unknown as PostgresPoolClient['query'],
      release: () => client.release(),
    };
  };
  return {
    connect: async () => {
      const client = await pool.connect();
      let wrapped = clients.get(client);
      if (!wrapped) {
        wrapped = wrap(client);
        clients.set(client, wrapped);
      }
      return wrapped;
    },
    end: () => pool.end(),
  };
}

/**
 * PostgreSQL refusing a named statement prepared before its table's columns changed: told by its
 * code and the routine that raised it (the message is translated under the server's lc_messages).
 */
function isStaleStatement(error: unknown): boolean {
  const { code, routine } = error as { code?: string; routine?: string };
  return code === '0A000' && routine === 'RevalidateCachedQuery';
}

/**
 * `url` with its connections committing without waiting for the log's flush (synchronous_commit
 * off), added to the options it already sets (pg lets the URL's `options` win over the config's).
 */
export function withoutWaitingForFlush(url: string): string {
  const parsed = new URL(url);
  const options = parsed.searchParams.get('options');
  parsed.searchParams.set('options', `${options ? `${options} ` : ''}-c synchronous_commit=off`);
  return parsed.toString();
}

/** TCP keep-alives on every connection, the first probe after 10 s of silence. */
const KEEP_ALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 };

export function openPostgresBotDatabase(url: string): BotDatabase {
  // A connection that cannot be made within 5 s fails (a health check must answer, not hang); one
  // whose server went silently (a dropped network path) is found by TCP keep-alives, not never.
  const connection = { types: pgTypes, max: 10, connectionTimeoutMillis: 5000, ...KEEP_ALIVE };
  const pool = new pg.Pool({ connectionString: url, ...connection });
  // An idle connection the server dropped (a restart, a failover) is only logged by pg as an
  // 'error' event, which would end the process; the next query gets a new connection or the error.
  pool.on('error', () => {});
  const db = new Kysely<BotTables>({ dialect: new PostgresDialect({ pool: namingStatements(pool) }) });
  const recoverablePool = new pg.Pool({ connectionString: withoutWaitingForFlush(url), ...connection });
  recoverablePool.on('error', () => {});
  const recoverableDb = new Kysely<BotTables>({
    dialect: new PostgresDialect({ pool: namingStatements(recoverablePool) }),
  });
  const ready = migrateBotPostgres(db);
  // Seen by the first query (and close); not an unhandled rejection meanwhile.
  ready.catch(() => {});
  return {
    kind: 'postgres',
    db,
    recoverableDb,
    ready,
    jsonStrings: (json) => sql<string>`(select jsonb_array_elements_text(cast(${json} as jsonb)))`,
    jsonItems: (json) =>
      sql`(select value->>0 as item_key, value->>1 as listing, cast(value->>2 as integer) as position
        from jsonb_array_elements(cast(${json} as jsonb)))`,
    appendPostedTs: (value) =>
      sql<string>`cast(cast(posted_ts as jsonb) || jsonb_build_array(cast(${value} as text)) as text)`,
    postedTsLength: sql<number>`jsonb_array_length(cast(posted_ts as jsonb))`,
    lockSkippingLocked: sql`for update skip locked`,
    close: async () => {
      await ready.catch(() => {});
      await Promise.all([db.destroy(), recoverableDb.destroy()]);
    },
  };
}
