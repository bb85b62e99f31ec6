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
});
