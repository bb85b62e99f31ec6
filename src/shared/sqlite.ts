import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database, { type Statement } from 'better-sqlite3';

/**
 * SQLite as both the service and the bot use it: one opener, one migrator, one statement
 * cache. Neither side imports the other's storage; both import this.
 */
export type SqliteDatabase = Database.Database;

/**
 * Opens (creating if needed) a SQLite file in WAL mode and brings its schema up to the newest of
 * `migrations`. `:memory:` gives a throwaway database.
 */
export function openSqlite(path: string, migrations: readonly string[]): SqliteDatabase {
  const db = openSqliteConnection(path);
  migrateSqlite(db, migrations);
  return db;
}

/** Opens (creating if needed) a SQLite file with the pragmas openSqlite sets, without migrating it. */
export function openSqliteConnection(path: string): SqliteDatabase {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  setWal(db);
  // WAL with NORMAL is durable across process crashes; only a power cut can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -64000');
  return db;
}

/**
 * Switches a new file to WAL. The switch takes the file's exclusive lock, and SQLite answers BUSY at
 * once, without waiting (its busy timeout would risk a deadlock), to a connection that finds
 * another opening the same new file at that moment: tried again for up to 5 s.
 */
function setWal(db: SqliteDatabase): void {
  const deadline = Date.now() + 5000;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(WAIT, 0, 0, pause);
    }
  }
}
const WAIT = new Int32Array(new SharedArrayBuffer(4));

/**
 * Applies every migration newer than the database's `user_version`, each in its own transaction.
 * The version is read again inside each write transaction (BEGIN IMMEDIATE takes the write lock
 * first), so two processes opening a new file at once apply each migration once: the second waits,
 * then finds it done.
 */
export function migrateSqlite(db: SqliteDatabase, migrations: readonly string[]): void {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const check = (current: number) => {
    if (current > migrations.length) {
      throw new Error(
        `database schema version ${current} is newer than this program knows (${migrations.length}); upgrade tenderbot`,
      );
    }
  };
  check(version());
  for (;;) {
    const applied = db
      .transaction(() => {
        const current = version();
        check(current);
        if (current >= migrations.length) return false;
        db.exec(migrations[current] as string);
        db.pragma(`user_version = ${current + 1}`);
        return true;
      })
      .immediate();
    if (!applied) return;
  }
}

type Params = unknown[] | object;

/** Prepares each distinct SQL text once; queries built from filters repeat a small set of shapes. */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly db: SqliteDatabase) {}

  prepare(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  get<T>(sql: string, params: Params): T | undefined {
    const statement = this.prepare(sql);
    return (Array.isArray(params) ? statement.get(...params) : statement.get(params)) as T | undefined;
  }

  all<T>(sql: string, params: Params): T[] {
    const statement = this.prepare(sql);
    return (Array.isArray(params) ? statement.all(...params) : statement.all(params)) as T[];
  }

  run(sql: string, params: Params): { changes: number } {
    const statement = this.prepare(sql);
    return Array.isArray(params) ? statement.run(...params) : statement.run(params);
  }
}
