import type { Worker } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { publicRecordsVersion } from './count-cache.ts';
import type { SqliteDatabase } from './database.ts';
import type { VersionedRead } from './store-worker.ts';
import { BUCKETS, type Columns, readColumns, startColumnsWorker } from './tender-filter-columns.ts';
import {
  ANY,
  convertedValue,
  firstAbove,
  type Plan,
  planFilters,
  type TenderFilters,
  walk,
  windowOf,
} from './tender-filter-walk.ts';
import { WordIndexReader } from './word-index-reader.ts';

export type { TenderFilters } from './tender-filter-walk.ts';

/**
 * A tender search's words as the two tender word indexes take them: `words`, each as a prefix of
 * a Porter stem in tender_words ("libraries" and "library" alike); `phrases`, the quoted parts of
 * the text, word for word as written (no stemming, no prefix) in tender_exact_words. A tender
 * matches when it matches both (each when present). Built by tenderWordMatch (public-records-reader.ts);
 * declared here, where it is read, so that this module does not import the reader that imports it.
 */
export interface TenderWordMatch {
  words: string | null;
  phrases: string | null;
}

/** Word hit lists kept at most, counted in tenders (4 bytes each): 16 MiB. */
export const DEFAULT_WORD_HITS_BUDGET = 4_000_000;

/**
 * Filtered word searches answered from memory, with exact totals.
 *
 * Counting a filtered word search in SQL visits every hit of the word (93,000 for "cleaning" at a
 * million tenders), a row lookup each: 100–300 ms. Here each tender's filter columns are held in
 * typed arrays indexed by its sort key (about 45 bytes a tender), and each word's hits are read
 * from the word index once, as a sorted array of sort keys. A search then walks the word's hits
 * in order, testing the filters with array reads: the total and the page in one pass, about 1 ms
 * for 100,000 hits, whatever the filter. The rows of the page are then read by sort key.
 *
 * The rule for each filter is the same as the SQL in PublicRecordsReader.searchTenders (a test
 * compares the two over many combinations). Both are rebuilt when the public records change
 * (see publicRecordsVersion); the columns hold no status, only `open_until`, so the clock needs
 * no rebuild.
 *
 * Reading the columns takes 13–18 s at a million tenders. Read here on the first filtered search,
 * that blocks every request meanwhile; after `buildInBackground(file)` they are read in a worker
 * thread over its own read-only connection and handed over (the typed arrays moved, not copied),
 * and until they arrive, or after the records change until they arrive again, `search` answers
 * null, so the reader uses SQL: the same answers, slower.
 */
export class TenderFilterIndex {
  private version: string | null = null;
  private columns: Columns | null = null;
  private readonly wordHits = new Map<string, Int32Array>();
  private wordHitsHeld = 0;
  private background: Background | null = null;
  /** Totals of filtered searches by word, filters and run of hits (see totalKey); emptied with the hits. */
  private readonly totals = new Map<string, number>();
  /** Per word, its hits' values or deadlines sorted (see rangeTotal); emptied with the hits. */
  private readonly sortedColumns = new Map<string, Float64Array>();
  private sortedHeld = 0;
  private readonly waiting: ((ready: boolean) => void)[] = [];
  private readonly statements = new Map<string, Statement>();
  private wordIndex: WordIndexReader | null = null;

  /** `wordHitsBudget` 0 reads a word's hits afresh on every search (to measure first-time searches). */
  constructor(
    private readonly db: SqliteDatabase,
    private readonly wordHitsBudget = DEFAULT_WORD_HITS_BUDGET,
    /** Buckets a coarse column holds at most (see Buckets); fewer only in tests, to fill them. */
    private readonly bucketCount = BUCKETS,
  ) {}

  /**
   * The sort keys of page `[offset, offset + limit)` of the tenders matching `match` (an FTS5
   * expression) and `filters` at `now`, newest first, and how many match in all. Null when the
   * stored data cannot be compared in memory exactly like SQL does (then use SQL).
   */
  search(
    wordMatch: string | TenderWordMatch,
    filters: TenderFilters,
    now: string,
    offset: number,
    limit: number,
  ): { sortKeys: number[]; total: number } | null {
    this.refresh();
    const columns = this.columnsNow();
    if (columns === null) return null;
    const plan = planFilters(columns, filters, now);
    if (plan === null) return null;
    const match = matchKey(wordMatch);
    const hits = this.hitsOf(match);
    const [first, end] = windowOf(columns, plan, hits);
    // The total of a word and filters over the same run of hits is counted once: a later page,
    // or a publication bound that leaves the same hits, walks only until its page is full.
    const key = this.wordHitsBudget === 0 ? null : totalKey(match, plan, filters, first, end);
    const known =
      key === null
        ? undefined
        : (this.totals.get(key) ?? this.rangeTotal(match, columns, plan, hits, first, end));
    const found = walk(columns, plan, hits, first, end, offset, limit, known);
    if (key !== null && known === undefined) {
      if (this.totals.size >= TOTALS_KEPT) this.totals.clear();
      this.totals.set(key, found.total);
    }
    return found;
  }

  /**
   * An unfiltered word search from the word's hits: the page is a slice, the total their number.
   * Through SQL an FTS5 prefix query merges every matching term's hits before its first row
   * (93,000 for "cleaning" at a million tenders, about 50 ms), so the hits are kept, once per word
   * rather than per search. When hits are not kept (`wordHitsBudget` 0) they are read straight
   * from the word index's pages (WordIndexReader: 9,341 hits in about 0.08 ms, against 0.6 ms for
   * SQL to count them); null when that index cannot be read so: then SQL counts and reads the page.
   */
  searchWords(
    wordMatch: string | TenderWordMatch,
    offset: number,
    limit: number,
  ): { sortKeys: number[]; total: number } | null {
    this.refresh();
    const match = matchKey(wordMatch);
    const hits = this.wordHitsBudget === 0 ? this.directHitsOf(match) : this.hitsOf(match);
    if (hits === null) return null;
    return { sortKeys: Array.from(hits.subarray(offset, offset + limit)), total: hits.length };
  }

  /**
   * A total counted without a walk: a value range or a deadline window alone, over all of a word's
   * hits, is two binary searches in the word's values (or deadlines) kept sorted, so a range never
   * asked before costs microseconds instead of a walk (3.4 ms for 93,000 hits at a million tenders,
   * each a cache miss). Undefined for any other plan.
   */
  private rangeTotal(
    match: string,
    columns: Columns,
    plan: Plan,
    hits: Int32Array,
    first: number,
    end: number,
  ): number | undefined {
    const alone =
      first === 0 &&
      end === hits.length &&
      plan.statusId === ANY &&
      Number.isNaN(plan.openAt) &&
      Number.isNaN(plan.closedAt) &&
      plan.regionId === ANY &&
      plan.buyerId === ANY &&
      plan.cpvInRange === null &&
      !plan.publishedTested;
    if (!alone || plan.valueTested === plan.deadlineTested) return undefined;
    const sorted = plan.valueTested
      ? this.sortedOf(match, `value:${plan.valueCurrency}`, hits, (key) => convertedValue(columns, plan, key))
      : this.sortedOf(match, 'deadline', hits, (key) => columns.deadline[key] as number);
    // value: min ≤ v ≤ max; deadline: from ≤ d < to (NaN, no value, is not in the sorted list).
    const inRange = plan.valueTested
      ? firstAbove(sorted, plan.valueMax, true) - firstAbove(sorted, plan.valueMin, false)
      : firstAbove(sorted, plan.deadlineTo, false) - firstAbove(sorted, plan.deadlineFrom, false);
    // A lower bound above the upper one matches nothing.
    return Math.max(0, inRange);
  }

  /** The word’s hits’ values by `entryOf` (named `name`), sorted, without NaN; kept within the word hits' budget. */
  private sortedOf(
    match: string,
    name: string,
    hits: Int32Array,
    entryOf: (key: number) => number,
  ): Float64Array {
    const id = `${name}\u0000${match}`;
    const known = this.sortedColumns.get(id);
    if (known) return known;
    const values = new Float64Array(hits.length);
    let count = 0;
    for (let index = 0; index < hits.length; index++) {
      const entry = entryOf(hits[index] as number);
      if (!Number.isNaN(entry)) values[count++] = entry;
    }
    const sorted = values.slice(0, count).sort();
    if (this.sortedHeld + sorted.length > this.wordHitsBudget) {
      this.sortedColumns.clear();
      this.sortedHeld = 0;
    }
    if (sorted.length <= this.wordHitsBudget) {
      this.sortedColumns.set(id, sorted);
      this.sortedHeld += sorted.length;
    }
    return sorted;
  }

  /**
   * From now on the filter columns are read in a worker thread, over a read-only connection of
   * its own to `file` (this index's database), starting now (`startNow` false: on the first search
   * that needs them). A `:memory:` database cannot be shared: there the columns stay read on first use.
   */
  buildInBackground(file: string, startNow = true): void {
    if (this.background || file === ':memory:' || file === '') return;
    this.background = { file, worker: null, failed: false };
    this.refresh();
    // Not now: on this thread's first search that needs the columns (searches go elsewhere meanwhile).
    if (!this.columns && startNow) this.startWorker(this.background);
  }

  /** Resolves with true once the columns are in memory, false if reading them in the background failed. */
  whenReady(): Promise<boolean> {
    if (this.columns) return Promise.resolve(true);
    if (!this.background || this.background.failed) return Promise.resolve(false);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Stops a background read under way (the database is about to close). */
  async close(): Promise<void> {
    const background = this.background;
    this.background = null;
    this.settle(false);
    await background?.worker?.terminate();
  }

  /** The columns, or null while the worker reads them (see buildInBackground). */
  private columnsNow(): Columns | null {
    if (this.columns) return this.columns;
    const background = this.background;
    if (background && !background.failed) {
      this.startWorker(background);
      return null;
    }
    this.columns = readColumns(this.db, this.bucketCount);
    return this.columns;
  }

  private startWorker(background: Background): void {
    if (background.worker) return;
    const expected = publicRecordsVersion(this.db);
    const worker = startColumnsWorker(background.file, this.bucketCount);
    background.worker = worker;
    const done = () => {
      if (background.worker === worker) background.worker = null;
      void worker.terminate();
    };
    worker.once('message', (message: VersionedRead<Columns>) => {
      done();
      if (this.background !== background) return;
      // A database closed without close() first: nothing to keep, and nothing to throw from here.
      if (!this.db.open) {
        this.background = null;
        this.settle(false);
        return;
      }
      // Kept only if the records did not change since the read began (else the next search reads again).
      const current = publicRecordsVersion(this.db);
      if (current === expected && current === `${message.recordsVersion}:${current.split(':').pop()}`) {
        this.version = current;
        this.columns = message.read;
        this.settle(true);
      }
    });
    const failed = () => {
      if (background.worker !== worker) return;
      done();
      // Read here on the next search instead, as without a background read.
      background.failed = true;
      this.settle(false);
    };
    worker.once('error', failed);
    // Ended without an answer (not by close(), which forgets the read first).
    worker.once('exit', failed);
  }

  private settle(ready: boolean): void {
    for (const resolve of this.waiting.splice(0)) resolve(ready);
  }

  /** Empties everything when the public records changed since the columns were read. */
  private refresh(): void {
    const version = publicRecordsVersion(this.db);
    if (version === this.version) return;
    this.columns = null;
    this.wordHits.clear();
    this.wordHitsHeld = 0;
    this.totals.clear();
    this.sortedColumns.clear();
    this.sortedHeld = 0;
    this.version = version;
  }

  private statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql).pluck();
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private hitsOf(match: string): Int32Array {
    const known = this.wordHits.get(match);
    if (known) {
      // Re-insert: the map's order is least recently used first.
      this.wordHits.delete(match);
      this.wordHits.set(match, known);
      return known;
    }
    // Read straight from the word index's pages when it can be; copied to be kept (the reader
    // reuses its buffer), used in place when not (the search is over before the next read).
    const direct = this.directHitsOf(match);
    const hits =
      direct === null ? this.sqlHitsOf(match) : this.wordHitsBudget === 0 ? direct : direct.slice();
    if (this.wordHitsBudget > 0 && hits.length <= this.wordHitsBudget) {
      while (this.wordHitsHeld + hits.length > this.wordHitsBudget) {
        const oldest = this.wordHits.keys().next().value as string;
        this.wordHitsHeld -= (this.wordHits.get(oldest) as Int32Array).length;
        this.wordHits.delete(oldest);
      }
      this.wordHits.set(match, hits);
      this.wordHitsHeld += hits.length;
    }
    return hits;
  }

  /**
   * A words-only match's hits read from tender_words' pages (a view of the reader's buffer, valid
   * until its next read); null for phrases, or when that index cannot be read so.
   */
  private directHitsOf(match: string): Int32Array | null {
    if (match.includes(PHRASES_APART)) return null;
    const words = [...match.matchAll(QUOTED_PREFIX)].map((found) => found[1] as string);
    if (words.length === 0) return null;
    this.wordIndex ??= new WordIndexReader(this.db);
    return this.wordIndex.hitsOf(words);
  }

  /** A match's hits through SQL (sort keys, ascending). */
  private sqlHitsOf(match: string): Int32Array {
    const [words, phrases] = match.split(PHRASES_APART);
    // The hits as one JSON array, not a row each: a row costs better-sqlite3 an object and a call,
    // about half the time of the whole read (9,341 hits at 100,000 tenders: 1.75 ms as rows, 1.0 ms so).
    const keysJson = (
      phrases === undefined
        ? this.statement(HITS_OF_WORDS).get(words)
        : words === ''
          ? this.statement(HITS_OF_PHRASES).get(phrases)
          : this.statement(HITS_OF_WORDS_AND_PHRASES).get(words, phrases)
    ) as string;
    const hits = new Int32Array(JSON.parse(keysJson) as number[]);
    // FTS5 gives rowids in ascending order (and the aggregate keeps its rows' order); sort only if
    // that ever stops being so.
    for (let index = 1; index < hits.length; index++) {
      if ((hits[index - 1] as number) > (hits[index] as number)) {
        hits.sort();
        break;
      }
    }
    return hits;
  }
}

/** A word match's hits (sort keys, ascending), each as one JSON array. */
const HITS_OF_WORDS = 'SELECT json_group_array(rowid) FROM tender_words WHERE tender_words MATCH ?';
const HITS_OF_PHRASES =
  'SELECT json_group_array(rowid) FROM tender_exact_words WHERE tender_exact_words MATCH ?';
const HITS_OF_WORDS_AND_PHRASES = `SELECT json_group_array(rowid) FROM (
  SELECT rowid FROM tender_words WHERE tender_words MATCH ?
  INTERSECT SELECT rowid FROM tender_exact_words WHERE tender_exact_words MATCH ? ORDER BY 1)`;

/** A word of a words-only match expression (`"clean"* "lond"*`, see wordsToMatchExpression). */
const QUOTED_PREFIX = /"([^"]*)"\*/g;

/** Between a match's words and its phrases in its key (FTS5 expressions never hold it). */
const PHRASES_APART = '\u0001';

/**
 * One string per word match, for the maps of hits and totals: a words-only match is its own
 * expression (as the index was always called), one with phrases is words, PHRASES_APART, phrases.
 */
function matchKey(match: string | TenderWordMatch): string {
  if (typeof match === 'string') return match;
  return match.phrases === null
    ? (match.words ?? '')
    : `${match.words ?? ''}${PHRASES_APART}${match.phrases}`;
}

/** Filtered totals kept at most (a few hundred bytes each); all are forgotten when full. */
const TOTALS_KEPT = 20_000;

/**
 * What a filtered total depends on: the word, every filter's planned value (ids, bounds, the
 * instant for open or closed) and the run of hits a publication window leaves. A window tested
 * hit by hit is in the plan; one found by binary search is in `first` and `end`.
 */
function totalKey(match: string, plan: Plan, filters: TenderFilters, first: number, end: number): string {
  const window = plan.publishedTested ? `${plan.publishedFrom},${plan.publishedTo}` : '';
  const cpv = plan.cpvInRange === null ? '' : `${filters.cpvLow}\u0001${filters.cpvHigh}`;
  return [
    match,
    plan.statusId,
    plan.openAt,
    plan.closedAt,
    plan.regionId,
    plan.buyerId,
    cpv,
    plan.valueTested ? `${plan.valueMin},${plan.valueMax},${plan.valueCurrency}` : '',
    plan.deadlineTested ? `${plan.deadlineFrom},${plan.deadlineTo}` : '',
    window,
    first,
    end,
  ].join('\u0000');
}

interface Background {
  file: string;
  worker: Worker | null;
  /** The worker failed: the columns are read on the calling thread, as without a background read. */
  failed: boolean;
}
