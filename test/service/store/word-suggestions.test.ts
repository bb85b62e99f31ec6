import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData, seededRandom } from '../../../src/service/demo/demo-generator.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import { toStoredInstant } from '../../../src/service/store/public-records-reader.ts';
import { PublicRecordsWriter } from '../../../src/service/store/public-records-writer.ts';
import { WordSuggestions } from '../../../src/service/store/word-suggestions.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-suggestions-'));
let db: SqliteDatabase;

beforeAll(() => {
  db = openDatabase(join(dir, 'demo.db'));
  generateDemoData(db, { tenders: 1500, today: new Date('2026-06-01T00:00:00Z') });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Optimal string alignment distance, the textbook full table (no early stop, no reuse). */
function plainDistance(a: string, b: string): number {
  const table = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const row = table[i] as number[];
      const above = table[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((table[i - 2] as number[])[j - 2] as number) + 1);
    }
  return (table[a.length] as number[])[b.length] as number;
}

/**
 * The plain rule over the whole vocabulary in its own order: a word of 4+ letters that finds no
 * tender gets the nearest term (within 1 edit up to 5 letters, else 2; terms of 3+ letters without
 * digits), the one in most tenders among equals, the first in the vocabulary among those.
 */
function plainSuggestion(word: string): string | null {
  if ([...word].length < 4 || /^\d+$/.test(word)) return null;
  if (db.prepare('SELECT 1 FROM tender_words WHERE tender_words MATCH ? LIMIT 1').get(`"${word}"*`))
    return null;
  const limit = [...word].length <= 5 ? 1 : 2;
  const terms = db.prepare('SELECT term, doc FROM tender_vocabulary').all() as {
    term: string;
    doc: number;
  }[];
  let best: { term: string; distance: number; doc: number } | null = null;
  for (const { term, doc } of terms) {
    if (term.length < 3 || /\d/.test(term)) continue;
    const distance = plainDistance(word, term);
    if (distance > limit) continue;
    if (best === null || distance < best.distance || (distance === best.distance && doc > best.doc))
      best = { term, distance, doc };
  }
  return best?.term ?? null;
}

describe('word suggestions read by length against the plain rule over the whole vocabulary', () => {
  it('suggests the same word for 300 seeded misspellings of the data’s own words (and for none)', () => {
    const random = seededRandom(31);
    const vocabulary = db
      .prepare("SELECT term FROM tender_vocabulary WHERE length(term) >= 4 AND term NOT GLOB '*[0-9]*'")
      .pluck()
      .all() as string[];
    expect(vocabulary.length).toBeGreaterThan(100);
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const letter = () => letters[Math.floor(random() * letters.length)] as string;
    /** One to three random edits: a letter changed, dropped, added, or two neighbours swapped. */
    const misspell = (word: string): string => {
      let result = word;
      for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
        const at = Math.floor(random() * result.length);
        const kind = Math.floor(random() * 4);
        if (kind === 0) result = result.slice(0, at) + letter() + result.slice(at + 1);
        else if (kind === 1 && result.length > 4) result = result.slice(0, at) + result.slice(at + 1);
        else if (kind === 2) result = result.slice(0, at) + letter() + result.slice(at);
        else if (at > 0)
          result = result.slice(0, at - 1) + result[at] + result[at - 1] + result.slice(at + 1);
      }
      return result;
    };
    const suggestions = new WordSuggestions(db);
    let corrected = 0;
    let uncorrected = 0;
    for (let round = 0; round < 300; round++) {
      const word = misspell(vocabulary[Math.floor(random() * vocabulary.length)] as string);
      const expected = plainSuggestion(word);
      const found = suggestions.suggest([word]);
      expect(found, word).toEqual(expected === null ? [] : [{ word, correction: expected }]);
      if (expected === null) uncorrected++;
      else corrected++;
    }
    // Both outcomes are compared, not only one.
    expect(corrected).toBeGreaterThan(100);
    expect(uncorrected).toBeGreaterThan(10);
  });
});

/** A new open tender titled `title`, written and committed by `writing` as an import does. */
function writeTender(writing: SqliteDatabase, id: string, title: string): void {
  const writer = new PublicRecordsWriter(writing);
  writing.transaction(() => {
    writer.writeRelease({
      id,
      releaseDate: toStoredInstant(new Date('2026-06-01T00:00:00Z')),
      title,
      description: null,
      status: 'open',
      buyer: null,
      value: null,
      deadline: '2026-07-10T12:00:00Z',
      region: 'Wales',
      cpvCodes: [],
      sourceName: 'test',
      sourceId: id,
      url: null,
      frameworkId: null,
      awards: [],
      framework: null,
    });
    writer.finish();
  })();
}

describe('the vocabulary read off the request thread', () => {
  it('answers right after a change from the vocabulary held, reads the new one in a worker, then suggests its words as the plain read does', async () => {
    const path = join(dir, 'background.db');
    const serving = openDatabase(path);
    const writing = openDatabase(path);
    const suggestions = new WordSuggestions(serving);
    try {
      generateDemoData(writing, { tenders: 300, today: new Date('2026-06-01T00:00:00Z') });
      suggestions.readInBackground(path);
      suggestions.readNow();
      expect(suggestions.vocabularyReadsOnThisThread).toBe(1);
      expect(suggestions.suggest(['clenaing'])).toEqual([{ word: 'clenaing', correction: 'cleaning' }]);

      writeTender(writing, 'ocds-test-zephyrology', 'Zephyrology survey of the old lighthouse');
      // Right after the change: no read on this thread; the held vocabulary answers, which has no
      // "zephyrology" yet, and still corrects the words it has.
      expect(suggestions.suggest(['zephyrolgy', 'clenaing'])).toEqual([
        { word: 'clenaing', correction: 'cleaning' },
      ]);
      expect(suggestions.vocabularyReadsOnThisThread).toBe(1);

      expect(await suggestions.whenReady()).toBe(true);
      expect(suggestions.vocabularyReadsOnThisThread).toBe(1);
      const found = suggestions.suggest(['zephyrolgy', 'clenaing', 'lighthuose']);
      expect(found).toEqual([
        { word: 'zephyrolgy', correction: 'zephyrology' },
        { word: 'clenaing', correction: 'cleaning' },
        { word: 'lighthuose', correction: 'lighthouse' },
      ]);
      // The same as a vocabulary read in place, on the request's thread, gives.
      expect(new WordSuggestions(serving).suggest(['zephyrolgy', 'clenaing', 'lighthuose'])).toEqual(found);
    } finally {
      await suggestions.close();
      serving.close();
      writing.close();
    }
  });

  it('gives nothing before the first read rather than read on the request, and reads in place without a file or after the worker failed', async () => {
    const path = join(dir, 'first-read.db');
    const serving = openDatabase(path);
    try {
      generateDemoData(serving, { tenders: 200, today: new Date('2026-06-01T00:00:00Z') });
      const inBackground = new WordSuggestions(serving);
      inBackground.readInBackground(path);
      expect(inBackground.suggest(['clenaing'])).toEqual([]);
      expect(inBackground.vocabularyReadsOnThisThread).toBe(0);
      expect(await inBackground.whenReady()).toBe(true);
      expect(inBackground.suggest(['clenaing'])).toEqual([{ word: 'clenaing', correction: 'cleaning' }]);
      expect(inBackground.vocabularyReadsOnThisThread).toBe(0);
      await inBackground.close();

      // A file the worker cannot open: the read fails there, and the next search reads in place.
      const failing = new WordSuggestions(serving);
      failing.readInBackground(join(dir, 'no-such-file.db'));
      expect(await failing.whenReady()).toBe(false);
      expect(failing.suggest(['clenaing'])).toEqual([{ word: 'clenaing', correction: 'cleaning' }]);
      expect(failing.vocabularyReadsOnThisThread).toBe(1);
      await failing.close();

      const inPlace = new WordSuggestions(serving);
      inPlace.readInBackground(':memory:');
      expect(inPlace.suggest(['clenaing'])).toEqual([{ word: 'clenaing', correction: 'cleaning' }]);
      expect(inPlace.vocabularyReadsOnThisThread).toBe(1);
    } finally {
      serving.close();
    }
  });
});
