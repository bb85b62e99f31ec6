import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteBotDatabase } from '../../../src/app/storage/bot-database.ts';
import { deliveryQueries } from '../../../src/app/storage/delivery-queries.ts';
import type { Prepared } from '../../../src/app/storage/kysely-store-base.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-delivery-queries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Any value for any slot: the plan, not the answer, is looked at. */
const anyArgs = new Proxy({}, { get: () => '1' }) as Readonly<Record<string, unknown>>;

describe("the scheduler's queries on SQLite", () => {
  it('never read a whole table: the deliveries are found by id or through the open ones’ indexes', async () => {
    // Finished deliveries stay 90 days: a query that scans the table reads all of them for every post.
    const database = openSqliteBotDatabase(join(dir, 'plans.db'));
    const queries = deliveryQueries(database);
    const scans: string[] = [];
    let looked = 0;
    for (const [name, query] of Object.entries(queries)) {
      if (!query) continue;
      const compiled = (query as Prepared<unknown>).bind(anyArgs);
      const { rows } = await database.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      looked++;
      for (const { detail } of rows)
        if (/^SCAN (deliveries|subscriptions|delivered_items|d|l|o)\b/.test(detail))
          scans.push(`${name}: ${detail}`);
    }
    expect(looked).toBeGreaterThan(15);
    expect(scans).toEqual([]);
    await database.close();
  });
});
