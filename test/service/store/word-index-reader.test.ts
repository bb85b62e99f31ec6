import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData, seededRandom } from '../../../src/service/demo/demo-generator.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import { MIGRATIONS } from '../../../src/service/store/migrations.ts';
import { PublicRecordsReader } from '../../../src/service/store/public-records-reader.ts';
import { WordIndexReader } from '../../../src/service/store/word-index-reader.ts';

const TODAY = new Date('2026-06-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-word-index-reader-'));
let db: SqliteDatabase;

beforeAll(() => {
  db = openDatabase(join(dir, 'demo.db'));
  generateDemoData(db, { tenders: 3000, today: TODAY });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The hits FTS5 itself gives for the words, each a prefix of a stem, ascending. */
function sqlHits(database: SqliteDatabase, words: string[]): number[] {
  return database
    .prepare('SELECT rowid FROM tender_words WHERE tender_words MATCH ? ORDER BY rowid')
    .pluck()
    .all(words.map((word) => `"${word}"*`).join(' ')) as number[];
}

/** Every word of the tenders as written (the exact index's vocabulary). */
function vocabulary(database: SqliteDatabase): string[] {
  return database.prepare('SELECT term FROM tender_vocabulary ORDER BY term').pluck().all() as string[];
}

describe('WordIndexReader', () => {
  it('reads the same hits as FTS5 for every word of the data, cut to every length, and for random pairs', () => {
    const reader = new WordIndexReader(db);
    try {
      const words = vocabulary(db);
      expect(words.length).toBeGreaterThan(100);
      let read = 0;
      let hits = 0;
      for (const word of words) {
        for (const length of [2, 3, 4, 5, 7, 9, word.length]) {
          const cut = word.slice(0, length);
          const direct = reader.hitsOf([cut]);
          if (direct === null) continue;
          read++;
          hits += direct.length;
          expect(Array.from(direct), cut).toEqual(sqlHits(db, [cut]));
        }
      }
      // Most words are read from the pages (the rest, stems of 1 or over 10 letters, go to SQL).
      expect(read).toBeGreaterThan(words.length * 3);
      expect(hits).toBeGreaterThan(100_000);
      const random = seededRandom(9);
      const pick = () => words[Math.floor(random() * words.length)] as string;
      let pairsWithHits = 0;
      for (let round = 0; round < 300; round++) {
        const pair = [
          pick().slice(0, 2 + Math.floor(random() * 6)),
          pick().slice(0, 3 + Math.floor(random() * 6)),
        ];
        const direct = reader.hitsOf(pair);
        if (direct === null) continue;
        const expected = sqlHits(db, pair);
        if (expected.length > 0) pairsWithHits++;
        expect(Array.from(direct), pair.join(' ')).toEqual(expected);
      }
      expect(pairsWithHits).toBeGreaterThan(20);
      // A word of no tender: no hits, read as such.
      expect(Array.from(reader.hitsOf(['zzzznothing']) ?? [-1])).toEqual([]);
    } finally {
      reader.close();
    }
  });

  it('answers null for what it does not read (SQL answers instead): stems of 1 or over 10 letters, several segments', () => {
    const path = join(dir, 'segments.db');
    const database = openDatabase(path);
    const reader = new WordIndexReader(database);
    try {
      generateDemoData(database, { tenders: 300, today: TODAY });
      expect(reader.hitsOf(['cleaning'])).not.toBeNull();
      // "a" has no prefix index of 1 letter; "environmental" stems to 11 letters.
      expect(reader.hitsOf(['a'])).toBeNull();
      expect(reader.hitsOf(['environmental'])).toBeNull();
      // A tender indexed on its own after the rewrite: a second segment.
      database.exec(`
        INSERT INTO tenders (sort_key, id, title, status, published_at, source_name, source_id)
          VALUES (999999, 't-drains', 'Cleaning of drains', 'open', '2020-01-01T00:00:00Z', 'test', 'd-1');
        INSERT INTO tender_words (rowid, title, description, buyer_name)
          VALUES (999999, 'Cleaning of drains', NULL, NULL);
      `);
      expect(reader.hitsOf(['cleaning'])).toBeNull();
      const expected = sqlHits(database, ['cleaning']);
      expect(expected).toContain(999999);
      const searched = new PublicRecordsReader(database, 0).searchTenders(
        { q: 'cleaning', limit: 5, offset: 0 },
        TODAY,
      );
      expect(searched.total).toBe(expected.length);
    } finally {
      reader.close();
      database.close();
    }
  });

  it('finds words holding marks the index splits at, without failing', () => {
    const reader = new PublicRecordsReader(db, 0);
    const split = reader.searchTenders({ q: 'clean\u19b0ing', limit: 5, offset: 0 }, TODAY);
    const both = reader.searchTenders({ q: 'clean ing', limit: 5, offset: 0 }, TODAY);
    expect(split.total).toBe(both.total);
  });
});

describe('schema step 9 on a database whose word index keeps positions', () => {
  it('rebuilds tender_words without them, as one segment, with the same hits', () => {
    const path = join(dir, 'before-step-9.db');
    const before = openDatabase(path, MIGRATIONS.slice(0, 8));
    generateDemoData(before, { tenders: 500, today: TODAY });
    const words = ['cleaning', 'serv', 'lond', 'catering', 'cl'];
    const expected = words.map((word) => sqlHits(before, [word]));
    before.close();

    const after = openDatabase(path);
    const reader = new WordIndexReader(after);
    try {
      expect(after.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
      const sql = after.prepare("SELECT sql FROM sqlite_schema WHERE name = 'tender_words'").pluck().get();
      expect(sql).toMatch(/detail=none/);
      words.forEach((word, index) => {
        expect(Array.from(reader.hitsOf([word]) ?? [-1]), word).toEqual(expected[index]);
      });
    } finally {
      reader.close();
      after.close();
    }
  });
});
