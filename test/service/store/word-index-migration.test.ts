import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/service/store/database.ts';
import { MIGRATIONS } from '../../../src/service/store/migrations.ts';
import { PublicRecordsReader } from '../../../src/service/store/public-records-reader.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-word-migration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TITLES = [
  'Branch library refit',
  'Libraries: book supply',
  'School meals for Cardiff',
  'School meal vouchers',
];

describe('schema step 6 on a database made before stems', () => {
  it('rebuilds the word index with stems and adds the exact one, keeping newest first and exact totals', () => {
    const path = join(dir, 'before-stems.db');
    const before = openDatabase(path, MIGRATIONS.slice(0, 5));
    const insert = before.prepare(
      `INSERT INTO tenders (sort_key, id, title, status, published_at, source_name, source_id)
       VALUES (?, ?, ?, 'open', ?, 'test', ?)`,
    );
    TITLES.forEach((title, index) => {
      insert.run(index + 1, `t-${index}`, title, `2026-0${5 - index}-01T09:00:00Z`, `s-${index}`);
    });
    before.exec("INSERT INTO tender_words (tender_words) VALUES ('rebuild')");
    const unstemmed = before
      .prepare(`SELECT count(*) FROM tender_words WHERE tender_words MATCH '"libraries"*'`)
      .pluck()
      .get();
    expect(unstemmed).toBe(1);
    before.close();

    const after = openDatabase(path);
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      const reader = new PublicRecordsReader(after, 0);
      const now = new Date('2026-06-01T00:00:00Z');
      const libraries = reader.searchTenders({ q: 'libraries', limit: 20, offset: 0 }, now);
      expect(libraries.total).toBe(2);
      expect(libraries.items.map((tender) => tender.id)).toEqual(['t-0', 't-1']);
      const phrase = reader.searchTenders({ q: '"school meals"', limit: 20, offset: 0 }, now);
      expect(phrase.items.map((tender) => tender.title)).toEqual(['School meals for Cardiff']);
      expect(phrase.total).toBe(1);
      // The vocabulary of the words as written, for suggestions.
      const terms = after.prepare('SELECT term FROM tender_vocabulary ORDER BY term').pluck().all();
      expect(terms).toEqual(expect.arrayContaining(['libraries', 'library', 'meal', 'meals']));
    } finally {
      after.close();
    }
  });
});
