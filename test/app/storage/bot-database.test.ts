import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BotDatabase,
  CHECKPOINT_EVERY_MS,
  openSqliteBotDatabase,
} from '../../../src/app/storage/bot-database.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bot-database-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A Kysely transaction that inserts a row and keeps the connection until `release`, then rolls
 * back; `rolledBack` resolves with its error's message.
 */
function holdInTransaction(db: BotDatabase['db']) {
  let release = () => {};
  const holding = new Promise<void>((resolve) => {
    release = resolve;
  });
  const rolledBack = db
    .transaction()
    .execute(async (trx) => {
      await trx.insertInto('seen_requests').values({ id: 'in-transaction', expires_at: 1 }).execute();
      await holding;
      throw new Error('rolled back');
    })
    .catch((error: Error) => error.message);
  return { release: () => release(), rolledBack };
}

describe("SQLite's direct statements", () => {
  it('run at once only while no transaction holds the connection, so none joins (and is rolled back with) another', async () => {
    const database = openSqliteBotDatabase(join(dir, 'direct.db'));
    const { db } = database;
    const runNow = database.runNow;
    if (!runNow) throw new Error('SQLite runs statements directly');
    const insert = (id: string) => db.insertInto('seen_requests').values({ id, expires_at: 1 }).compile();

    expect(runNow(insert('free'))?.numAffectedRows).toBe(1n);
    const { release, rolledBack } = holdInTransaction(db);
    // Until the transaction has the connection (from BEGIN to ROLLBACK), a read still runs at once.
    while (runNow(db.selectFrom('seen_requests').select('id').compile()) !== null) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(runNow(insert('during'))).toBeNull();
    release();
    expect(await rolledBack).toBe('rolled back');
    expect(runNow(insert('after'))?.numAffectedRows).toBe(1n);
    const ids = runNow(db.selectFrom('seen_requests').select('id').orderBy('id').compile())?.rows;
    expect(ids).toEqual([{ id: 'after' }, { id: 'free' }]);
    await database.close();
  });

  it('run a transaction of direct statements whole or not at all, with nothing else inside it', async () => {
    const database = openSqliteBotDatabase(join(dir, 'transact.db'));
    const { db, transactNow } = database;
    if (!transactNow) throw new Error('SQLite runs transactions directly');
    const insert = (id: string) => db.insertInto('seen_requests').values({ id, expires_at: 1 }).compile();
    let release = () => {};
    const holding = new Promise<void>((resolve) => {
      release = resolve;
    });
    const failed = transactNow(async (run) => {
      run(insert('undone'));
      await holding;
      throw new Error('undone');
    }).catch((error: Error) => error.message);
    // Once the transaction has the connection, a direct statement does not run…
    while (database.runNow?.(db.selectFrom('seen_requests').select('id').compile()) !== null) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(database.runNow?.(insert('direct'))).toBeNull();
    // …and Kysely's own query waits for it (not inside it, so not undone with it).
    const outside = db.insertInto('seen_requests').values({ id: 'outside', expires_at: 1 }).execute();
    release();
    expect(await failed).toBe('undone');
    await outside;
    expect(await transactNow(async (run) => run(insert('kept')).numAffectedRows)).toBe(1n);
    const ids = await db.selectFrom('seen_requests').select('id').orderBy('id').execute();
    expect(ids.map((row) => row.id)).toEqual(['kept', 'outside']);
    await database.close();
  });
});

describe("SQLite's group commit", () => {
  it('commits the statements asked for in one turn together, each settling with its own outcome', async () => {
    const path = join(dir, 'grouped.db');
    const database = openSqliteBotDatabase(path);
    const { db, runBatched } = database;
    if (!runBatched) throw new Error('SQLite groups its commits');
    const insert = (id: string) => db.insertInto('seen_requests').values({ id, expires_at: 1 }).compile();
    const reader = new Database(path);
    /** Frames in the write-ahead log since it was last emptied: one commit writes one or more. */
    const walFrames = () => (reader.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]?.log ?? -1;
    reader.pragma('wal_checkpoint(TRUNCATE)');

    const together = Array.from({ length: 20 }, (_, index) => runBatched(insert(`together-${index}`)));
    const duplicate = runBatched(insert('together-3')).catch((error: Error) => error.message);
    const results = await Promise.all(together);
    expect(results.map((result) => result.numAffectedRows)).toEqual(Array(20).fill(1n));
    expect(await duplicate).toMatch(/UNIQUE constraint failed/);
    // Committed once settled: another connection sees every row the batch kept.
    expect(
      reader.prepare("select count(*) as n from seen_requests where id like 'together-%'").get(),
    ).toEqual({
      n: 20,
    });
    const framesTogether = walFrames();
    reader.pragma('wal_checkpoint(TRUNCATE)');
    for (let index = 0; index < 20; index++) await runBatched(insert(`alone-${index}`));
    const framesAlone = walFrames();
    // Twenty commits write at least twenty frames; one commit of twenty rows on one page, a few.
    expect(framesAlone).toBeGreaterThanOrEqual(20);
    expect(framesTogether).toBeLessThan(5);
    reader.close();
    await database.close();
  });

  it('fails every statement of the batch when one ends the transaction, keeping none of them', async () => {
    const path = join(dir, 'grouped-rollback.db');
    const database = openSqliteBotDatabase(path);
    const { db, runBatched } = database;
    if (!runBatched) throw new Error('SQLite groups its commits');
    const insert = (id: string) => db.insertInto('seen_requests').values({ id, expires_at: 1 }).compile();
    // A statement that rolls the whole transaction back (as SQLite does on some errors).
    await sql`create trigger undo_all before insert on seen_requests when new.id = 'undo'
      begin select raise(rollback, 'undone'); end`.execute(db);
    const outcomes = await Promise.allSettled([
      runBatched(insert('before')),
      runBatched(insert('undo')),
      runBatched(insert('after')),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    const kept = await db.selectFrom('seen_requests').select('id').execute();
    expect(kept).toEqual([]);
    // The connection is usable after: the next batch commits.
    expect((await runBatched(insert('next'))).numAffectedRows).toBe(1n);
    await database.close();
  });

  it('commits units of work with the statements of their turn, undoing only a unit that throws', async () => {
    const path = join(dir, 'grouped-work.db');
    const database = openSqliteBotDatabase(path);
    const { db, runBatched, transactBatched } = database;
    if (!runBatched || !transactBatched) throw new Error('SQLite groups its commits');
    const insert = (id: string) => db.insertInto('seen_requests').values({ id, expires_at: 1 }).compile();
    const reader = new Database(path);
    reader.pragma('wal_checkpoint(TRUNCATE)');
    const outcomes = await Promise.allSettled([
      transactBatched(async (run) => {
        run(insert('unit-1-a'));
        // A unit may wait on promises between its statements; nothing else runs inside it.
        await Promise.resolve();
        run(insert('unit-1-b'));
        return 'first';
      }),
      runBatched(insert('statement')),
      transactBatched(async (run) => {
        run(insert('unit-2-a'));
        run(insert('unit-2-a'));
        return 'never';
      }),
      transactBatched(async (run) => {
        run(insert('unit-3-a'));
        throw new Error('changed its mind');
      }),
      transactBatched(async (run) => {
        run(insert('unit-4-a'));
        return 'fourth';
      }),
    ]);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : 'rejected'))).toEqual([
      'first',
      expect.objectContaining({ numAffectedRows: 1n }),
      'rejected',
      'rejected',
      'fourth',
    ]);
    const kept = reader.prepare('select id from seen_requests order by id').pluck().all();
    // The failed units left nothing (unit-2's first insert undone with its second), the others all.
    expect(kept).toEqual(['statement', 'unit-1-a', 'unit-1-b', 'unit-4-a']);
    // One commit for the turn: a few frames of the log, not one commit a unit.
    expect((reader.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]?.log).toBeLessThan(4);
    reader.close();
    await database.close();
  });

  it('waits behind a transaction holding the connection, and fails, not hangs, once closed', async () => {
    const database = openSqliteBotDatabase(join(dir, 'grouped-held.db'));
    const { db, runBatched } = database;
    if (!runBatched) throw new Error('SQLite groups its commits');
    const insert = (id: string) => db.insertInto('seen_requests').values({ id, expires_at: 1 }).compile();
    const { release, rolledBack } = holdInTransaction(db);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const waiting = [runBatched(insert('queued-1')), runBatched(insert('queued-2'))];
    release();
    expect(await rolledBack).toBe('rolled back');
    // Not inside the transaction (not undone with it): committed after it.
    expect((await Promise.all(waiting)).map((result) => result.numAffectedRows)).toEqual([1n, 1n]);
    const ids = await db.selectFrom('seen_requests').select('id').orderBy('id').execute();
    expect(ids.map((row) => row.id)).toEqual(['queued-1', 'queued-2']);
    const late = runBatched(insert('late'));
    await database.close();
    await expect(late).rejects.toThrow();
  });
});

describe("SQLite's checkpoints in the background", () => {
  it('copy the write-ahead log into the database from a thread of their own, not as this connection commits', async () => {
    // Under SQLite's own threshold (1,000 pages), a connection that checkpoints as it commits has
    // not yet copied anything into the database file: only the background thread can have.
    const fileGrowth = async (background: boolean) => {
      const path = join(dir, `checkpoints-${background}.db`);
      const database = openSqliteBotDatabase(path);
      const sizeBefore = statSync(path).size;
      if (background) {
        if (!database.checkpointInBackground) throw new Error('SQLite checkpoints in the background');
        database.checkpointInBackground();
      }
      const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
        database.db,
      );
      // Left to the thread: this connection no longer checkpoints as it commits.
      expect(rows[0]?.wal_autocheckpoint).toBe(background ? 0 : 1000);
      const body = 'x'.repeat(2000);
      for (let index = 0; index < 200; index++) {
        await database.db
          .insertInto('queued_commands')
          .values({ id: `c-${String(index).padStart(4, '0')}`, team_id: null, body, received_at: index })
          .execute();
      }
      const waitUntil = Date.now() + (background ? 10_000 : 4 * CHECKPOINT_EVERY_MS);
      while (Date.now() < waitUntil && statSync(path).size - sizeBefore <= 200 * 2000)
        await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_EVERY_MS));
      const growth = statSync(path).size - sizeBefore;
      await database.close();
      return growth;
    };
    expect(await fileGrowth(false)).toBe(0);
    expect(await fileGrowth(true)).toBeGreaterThan(200 * 2000);
  });
});
