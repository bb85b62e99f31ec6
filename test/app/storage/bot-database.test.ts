import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteBotDatabase } from '../../../src/app/storage/bot-database.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bot-database-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SQLite's direct statements", () => {
  it('run at once only while no transaction holds the connection, so none joins (and is rolled back with) another', async () => {
    const database = openSqliteBotDatabase(join(dir, 'direct.db'));
    const { db } = database;
    const runNow = database.runNow;
    if (!runNow) throw new Error('SQLite runs statements directly');
    const insert = (id: string) => db.insertInto('seen_requests').values({ id, expires_at: 1 }).compile();

    expect(runNow(insert('free'))?.numAffectedRows).toBe(1n);
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
