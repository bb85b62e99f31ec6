import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../../src/service/demo/demo-generator.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import {
  PublicRecordsReader,
  tenderWordMatch,
  toStoredInstant,
} from '../../../src/service/store/public-records-reader.ts';
import { TenderFilterIndex } from '../../../src/service/store/tender-filter-index.ts';

const TODAY = new Date('2026-06-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-phrases-'));
let db: SqliteDatabase;

beforeAll(() => {
  db = openDatabase(join(dir, 'demo.db'));
  generateDemoData(db, { tenders: 1500, today: TODAY });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The plain query: the phrases in the words as written, the other words by stem, one filter. */
function plain(
  phrases: string,
  words: string | null,
  filter: string,
  params: Record<string, unknown>,
): string[] {
  const wordCondition = words
    ? 'AND t.sort_key IN (SELECT rowid FROM tender_words WHERE tender_words MATCH @words)'
    : '';
  return db
    .prepare(
      `SELECT t.id FROM tenders t
       WHERE t.sort_key IN (SELECT rowid FROM tender_exact_words WHERE tender_exact_words MATCH @phrases)
       ${wordCondition} AND ${filter} ORDER BY t.published_at DESC, t.id`,
    )
    .pluck()
    .all({ ...params, phrases, words }) as string[];
}

describe('quoted phrases with filters, through the filter index and SQL', () => {
  it('gives the plain query’s tenders and totals, newest first', () => {
    const reader = new PublicRecordsReader(db);
    const index = new TenderFilterIndex(db);
    let nonEmpty = 0;
    for (const q of [
      '"cleaning services"',
      '"office cleaning" lond',
      '"software development"',
      '"services cleaning"',
    ])
      for (const [filter, condition] of [
        [{}, '1'],
        [{ region: 'london' }, "t.region = 'london' COLLATE NOCASE"],
        [{ valueMin: 50_000 }, 't.value_amount >= 50000'],
        [{ status: 'awarded' as const }, "t.status = 'awarded'"],
      ] as const) {
        const match = tenderWordMatch(q);
        expect(match?.phrases).not.toBeNull();
        const expected = plain(match?.phrases as string, match?.words ?? null, condition, {});
        const label = `${q} ${JSON.stringify(filter)}`;
        const found = reader.searchTenders({ q, ...filter, limit: 100, offset: 0 }, TODAY);
        expect(found.total, label).toBe(expected.length);
        expect(
          found.items.map((tender) => tender.id),
          label,
        ).toEqual(expected.slice(0, 100));
        if (Object.keys(filter).length > 0) {
          const fast = index.search(match ?? q, filter, toStoredInstant(TODAY), 0, 100);
          expect(fast?.total, label).toBe(expected.length);
        }
        if (expected.length > 0) nonEmpty++;
      }
    expect(nonEmpty).toBeGreaterThan(6);
    // Word order matters in a phrase; not outside one.
    expect(reader.searchTenders({ q: '"services cleaning"', limit: 1, offset: 0 }, TODAY).total).toBeLessThan(
      reader.searchTenders({ q: 'services cleaning', limit: 1, offset: 0 }, TODAY).total,
    );
  });
});
