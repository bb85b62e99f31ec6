/*
 * Over 500 lines: one index, and the worker thread that builds it is started from this same file
 * (see store-worker.ts), so the two stay together; its query planning and its layout in memory share
 * private structures.
 */
import type { Worker } from 'node:worker_threads';
import type { Statement } from 'better-sqlite3';
import { type Tender, VALUE_CURRENCIES, type ValueCurrency } from '../../contract/schemas.ts';
import {
  conversionFactor,
  DEFAULT_VALUE_CURRENCY,
  STORED_CURRENCY_WHEN_NONE,
} from '../money/reference-rates.ts';
import { publicRecordsVersion } from './count-cache.ts';
import type { SqliteDatabase } from './database.ts';
import { postVersionedRead, startStoreWorker, type VersionedRead, workerOfTask } from './store-worker.ts';
import { WordIndexReader } from './word-index-reader.ts';

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

/**
 * The filters of a tender search, with bounds already in stored format (`YYYY-MM-DDTHH:MM:SSZ`;
 * `…From` inclusive, `…To` exclusive), exactly as PublicRecordsReader writes them into SQL.
 */
export interface TenderFilters {
  status?: Tender['status'];
  buyerId?: string;
  region?: string;
  /** CPV code range: a prefix `p` is `[p, p + ':')`. */
  cpvLow?: string;
  cpvHigh?: string;
  valueMin?: number;
  valueMax?: number;
  /** The currency of valueMin/valueMax (GBP when absent): amounts are converted as in reference-rates.ts. */
  valueCurrency?: ValueCurrency;
  publishedFrom?: string;
  publishedTo?: string;
  deadlineFrom?: string;
  deadlineTo?: string;
}

/** Word hit lists kept at most, counted in tenders (4 bytes each): 16 MiB. */
export const DEFAULT_WORD_HITS_BUDGET = 4_000_000;

const NO_ID = -1;
const STORED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

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
    const worker = startStoreWorker(import.meta.url, WORKER_TASK, {
      file: background.file,
      bucketCount: this.bucketCount,
    });
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

interface Columns {
  statuses: string[];
  status: Uint8Array;
  /** Seconds since 1970, NaN for null (NaN fails every comparison, as NULL does in SQL). */
  openUntil: Float64Array;
  published: Float64Array;
  deadline: Float64Array;
  value: Float64Array;
  /** Each value's currency: an index into `currencies` (a missing one stored as GBP). */
  currencies: string[];
  currency: Uint16Array;
  /** Region ids by SQLite's NOCASE folding (ASCII letters only); none: an id no region has. */
  regionIds: Map<string, number>;
  region: IdColumn;
  buyerIds: Map<string, number>;
  buyer: IdColumn;
  /** Distinct CPV codes; each tender's code ids are cpvCodes[cpvStart[k] .. cpvStart[k + 1]). */
  cpvDictionary: string[];
  cpvStart: Int32Array;
  cpvCodes: Int32Array;
  /**
   * Coarse copies of the wide columns a walk reads (see Buckets): deadlines, open-until instants,
   * and values converted to each currency bounds may be in.
   */
  deadlineBuckets: Buckets;
  openUntilBuckets: Buckets;
  valueBuckets: Record<ValueCurrency, Buckets>;
  /** False when some stored instant is not in stored format: then its filter is left to SQL. */
  instantsExact: boolean;
  /** False when some stored value is not a number: then value filters are left to SQL. */
  valuesExact: boolean;
  /**
   * True when publication dates never rise with the sort key (the sort key is the newest-first
   * position): then a publication window is one run of a word's hits, found by binary search.
   */
  publishedDescending: boolean;
}

function readColumns(db: SqliteDatabase, bucketCount: number): Columns {
  const size = ((db.prepare('SELECT max(sort_key) FROM tenders').pluck().get() as number | null) ?? 0) + 1;
  const statuses: string[] = [];
  const status = new Uint8Array(size);
  const openUntil = new Float64Array(size).fill(Number.NaN);
  const published = new Float64Array(size).fill(Number.NaN);
  const deadline = new Float64Array(size).fill(Number.NaN);
  const value = new Float64Array(size).fill(Number.NaN);
  const currency = new Uint16Array(size);
  const currencyIds = new Map<string, number>();
  const region = new Int32Array(size).fill(NO_ID);
  const buyer = new Int32Array(size).fill(NO_ID);
  const regionIds = new Map<string, number>();
  const buyerIds = new Map<string, number>();
  let instantsExact = true;
  let valuesExact = true;
  const seconds = (instant: string | null): number => {
    if (instant === null) return Number.NaN;
    if (!STORED_INSTANT.test(instant)) instantsExact = false;
    return Date.parse(instant) / 1000;
  };
  // Read from the narrow covering index, not the rows (a fraction of the pages at a million tenders).
  const rows = db
    .prepare(
      `SELECT sort_key, status, open_until, published_at, deadline, value_amount, region, buyer_id, id,
         value_currency
       FROM tenders INDEXED BY tenders_filters`,
    )
    .raw(true)
    .iterate() as IterableIterator<
    [
      number,
      string,
      string | null,
      string,
      string | null,
      number | null,
      string | null,
      string | null,
      string,
      string | null,
    ]
  >;
  const keyOfId = new Map<string, number>();
  const present = new Uint8Array(size);
  for (const [
    key,
    statusText,
    openUntilText,
    publishedText,
    deadlineText,
    amount,
    regionText,
    buyerId,
    id,
    currencyText,
  ] of rows) {
    keyOfId.set(id, key);
    present[key] = 1;
    let statusId = statuses.indexOf(statusText);
    if (statusId < 0) statusId = statuses.push(statusText) - 1;
    status[key] = statusId;
    openUntil[key] = seconds(openUntilText);
    published[key] = seconds(publishedText);
    deadline[key] = seconds(deadlineText);
    if (amount !== null) {
      if (typeof amount === 'number') value[key] = amount;
      else valuesExact = false;
      // Ids past the array's range would wrap: leave value filters to SQL (65,535 currencies: never).
      if (currencyIds.size >= 0xffff) valuesExact = false;
      currency[key] = idOf(currencyIds, currencyText ?? STORED_CURRENCY_WHEN_NONE);
    }
    if (regionText !== null) region[key] = idOf(regionIds, foldAscii(regionText));
    if (buyerId !== null) buyer[key] = idOf(buyerIds, buyerId);
  }

  let publishedDescending = instantsExact;
  let previous = Number.POSITIVE_INFINITY;
  for (let key = 0; key < size && publishedDescending; key++) {
    if (present[key] !== 1) continue;
    const at = published[key] as number;
    // NaN (no date) or a later date after an earlier one: the window is tested hit by hit instead.
    if (!(at <= previous)) publishedDescending = false;
    previous = at;
  }

  const cpvIds = new Map<string, number>();
  // Codes by tender id, mapped to sort keys here: a join would look up every tender by id.
  const pairs = db
    .prepare('SELECT tender_id, code FROM tender_cpv INDEXED BY tender_cpv_by_code')
    .raw(true)
    .iterate() as IterableIterator<[string, string]>;
  let pairKeys: Int32Array = new Int32Array(1024);
  let pairCodes: Int32Array = new Int32Array(1024);
  let pairCount = 0;
  const cpvStart = new Int32Array(size + 1);
  for (const [tenderId, code] of pairs) {
    const key = keyOfId.get(tenderId);
    if (key === undefined) continue;
    if (pairCount === pairKeys.length) {
      pairKeys = grow(pairKeys);
      pairCodes = grow(pairCodes);
    }
    pairKeys[pairCount] = key;
    pairCodes[pairCount] = idOf(cpvIds, code);
    pairCount++;
    (cpvStart[key + 1] as number)++;
  }
  for (let key = 0; key < size; key++) (cpvStart[key + 1] as number) += cpvStart[key] as number;
  const cpvCodes = new Int32Array(pairCount);
  const filled = cpvStart.slice(0, size);
  for (let pair = 0; pair < pairCount; pair++) {
    const key = pairKeys[pair] as number;
    cpvCodes[(filled[key] as number)++] = pairCodes[pair] as number;
  }
  const currencies = [...currencyIds.keys()];
  return {
    statuses,
    status,
    openUntil,
    published,
    deadline,
    value,
    currencies,
    currency,
    regionIds,
    region: narrowIds(region, regionIds.size),
    buyerIds,
    buyer: narrowIds(buyer, buyerIds.size),
    cpvDictionary: [...cpvIds.keys()],
    cpvStart,
    cpvCodes,
    deadlineBuckets: bucketsOf(deadline, bucketCount),
    openUntilBuckets: bucketsOf(openUntil, bucketCount),
    // Every bound currency's, here where the columns are read (a worker thread): made on a first
    // search in that currency, 0.1–0.3 s a million tenders would fall on the searching thread.
    valueBuckets: Object.fromEntries(
      VALUE_CURRENCIES.map((to) => [
        to,
        bucketsOf(convertedValues(value, currency, currencies, to), bucketCount),
      ]),
    ) as Record<ValueCurrency, Buckets>,
    instantsExact,
    valuesExact,
    publishedDescending,
  };
}

/**
 * A Float64 column in 16 bits: its values sorted into up to 65,520 buckets of about equal counts.
 * A walk over 93,000 hits at a million tenders reads every cache line of an 8 MB column and a
 * quarter of them in 2 MB (3 times faster with the caches cold, as they are between searches).
 * A bound's bucket splits the rest: a value in a bucket below or above it is surely out or in,
 * and only a value in the bound's own bucket (a few per bound) is compared in the column itself.
 */
interface Buckets {
  /** Per sort key, the bucket of its value; NO_BUCKET for none (NaN), above every bucket. */
  of: Uint16Array;
  /** Bucket b holds the values in [edges[b], edges[b + 1]): ascending, no two alike. */
  edges: Float64Array;
}

const BUCKETS = 0xfff0;
const NO_BUCKET = 0xffff;

function bucketsOf(values: Float64Array, bucketCount: number): Buckets {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort();
  const edges: number[] = [];
  const step = Math.max(1, sorted.length / Math.min(bucketCount, BUCKETS));
  for (let at = 0; at < sorted.length; at += step) {
    const edge = sorted[Math.floor(at)] as number;
    if (edges.length === 0 || edge > (edges[edges.length - 1] as number)) edges.push(edge);
  }
  const edgesArray = Float64Array.from(edges);
  const of = new Uint16Array(values.length);
  for (let key = 0; key < values.length; key++) {
    const value = values[key] as number;
    of[key] = Number.isNaN(value) ? NO_BUCKET : bucketOf(edgesArray, value);
  }
  return { of, edges: edgesArray };
}

/** Where a plan reads no buckets. */
const NO_BUCKETS: Buckets = { of: new Uint16Array(0), edges: new Float64Array(0) };

/** The bucket `bound` falls in: the last whose edge is at or below it; -1 below the first. */
function bucketOf(edges: Float64Array, bound: number): number {
  let from = 0;
  let to = edges.length;
  while (from < to) {
    const middle = (from + to) >>> 1;
    if ((edges[middle] as number) <= bound) from = middle + 1;
    else to = middle;
  }
  return from - 1;
}

/** Every tender's value in `to` (NaN: none, or no rate), the same product as the walk's and the SQL's. */
function convertedValues(
  value: Float64Array,
  currency: Uint16Array,
  currencies: string[],
  to: ValueCurrency,
): Float64Array {
  const factors = Float64Array.from(currencies, (from) => conversionFactor(from, to));
  const converted = new Float64Array(value.length);
  for (let key = 0; key < value.length; key++)
    converted[key] = (value[key] as number) * (factors[currency[key] as number] as number);
  return converted;
}

/** Ids of a column, one per sort key: in the narrowest array that holds them all (see narrowIds). */
type IdColumn = Int32Array | Uint16Array | Uint8Array;

/**
 * `ids` (NO_ID for none) in the narrowest array that holds `count` ids and a value for none that
 * is no id (a region fits a byte): a walk over 93,000 hits reads a quarter of the cache lines.
 */
function narrowIds(ids: Int32Array, count: number): IdColumn {
  const Narrow = count < 0xff ? Uint8Array : count < 0xffff ? Uint16Array : null;
  if (Narrow === null) return ids;
  const none = Narrow === Uint8Array ? 0xff : 0xffff;
  const narrow = new Narrow(ids.length);
  for (let key = 0; key < ids.length; key++) {
    const id = ids[key] as number;
    narrow[key] = id === NO_ID ? none : id;
  }
  return narrow;
}

/**
 * A search's filters as plain values, so that one loop tests them inline (a closure per filter,
 * called per hit, cost 25–50 ns a hit; a million tenders give 93,000 hits for a common word).
 * Every bound is in seconds; an absent one is ±Infinity or -1, which every stored value passes
 * (NaN, for no value, fails every comparison, as NULL does in SQL, so a bound that is given is
 * tested even when it passes everything).
 */
interface Plan {
  /** -1: any; else the only status id that passes. */
  statusId: number;
  /** `status=open` (open at `at`) or `status=closed` (closed, or open but past `at`). */
  openAt: number;
  closedAt: number;
  regionId: number;
  buyerId: number;
  /** Per CPV dictionary entry, 1 when in the range; null when no CPV filter. */
  cpvInRange: Uint8Array | null;
  valueTested: boolean;
  valueMin: number;
  valueMax: number;
  /** The bounds' currency, and per currency id the factor its amounts are multiplied by (NaN: no rate). */
  valueCurrency: ValueCurrency;
  valueFactors: Float64Array;
  /** The bounds' buckets (see Buckets): value in the bound currency, deadline, open-until. */
  valueBuckets: Buckets;
  valueLow: number;
  valueHigh: number;
  deadlineLow: number;
  deadlineHigh: number;
  /** For open (above `openAt`) or closed (at or below `closedAt`); the other bound is the top bucket. */
  openUntilLow: number;
  openUntilHigh: number;
  deadlineTested: boolean;
  deadlineFrom: number;
  deadlineTo: number;
  /** Tested per hit only when the columns are not in publication order (else a run of hits). */
  publishedTested: boolean;
  publishedFrom: number;
  publishedTo: number;
}

const ANY = -1;
/** An id no tender has: a filter value the data does not hold matches nothing. */
const NONE = -2;

/** The plan of every filter given, or null when the columns cannot answer it exactly. */
function planFilters(columns: Columns, filters: TenderFilters, now: string): Plan | null {
  const usesInstants =
    filters.status !== undefined ||
    filters.publishedFrom !== undefined ||
    filters.publishedTo !== undefined ||
    filters.deadlineFrom !== undefined ||
    filters.deadlineTo !== undefined;
  if (usesInstants && !columns.instantsExact) return null;
  const usesValues = filters.valueMin !== undefined || filters.valueMax !== undefined;
  if (usesValues && !columns.valuesExact) return null;
  const seconds = (instant: string | undefined, absent: number) =>
    instant === undefined ? absent : Date.parse(instant) / 1000;
  const at = Date.parse(now) / 1000;
  let statusId = ANY;
  if (filters.status !== undefined && filters.status !== 'open' && filters.status !== 'closed') {
    const id = columns.statuses.indexOf(filters.status);
    statusId = id < 0 ? NONE : id;
  }
  const { cpvLow, cpvHigh } = filters;
  const valueCurrency = filters.valueCurrency ?? DEFAULT_VALUE_CURRENCY;
  const publishedTested = filters.publishedFrom !== undefined || filters.publishedTo !== undefined;
  const valueMin = filters.valueMin ?? Number.NEGATIVE_INFINITY;
  const valueMax = filters.valueMax ?? Number.POSITIVE_INFINITY;
  const deadlineFrom = seconds(filters.deadlineFrom, Number.NEGATIVE_INFINITY);
  const deadlineTo = seconds(filters.deadlineTo, Number.POSITIVE_INFINITY);
  const valueBuckets = usesValues ? columns.valueBuckets[valueCurrency] : NO_BUCKETS;
  const { edges: openEdges } = columns.openUntilBuckets;
  return {
    statusId,
    openAt: filters.status === 'open' ? at : Number.NaN,
    closedAt: filters.status === 'closed' ? at : Number.NaN,
    regionId: filters.region === undefined ? ANY : (columns.regionIds.get(foldAscii(filters.region)) ?? NONE),
    buyerId: filters.buyerId === undefined ? ANY : (columns.buyerIds.get(filters.buyerId) ?? NONE),
    cpvInRange:
      cpvLow !== undefined && cpvHigh !== undefined
        ? Uint8Array.from(columns.cpvDictionary, (code) => (code >= cpvLow && code < cpvHigh ? 1 : 0))
        : null,
    valueTested: usesValues,
    valueMin,
    valueMax,
    valueCurrency,
    valueFactors: Float64Array.from(columns.currencies, (from) => conversionFactor(from, valueCurrency)),
    valueBuckets,
    valueLow: bucketOf(valueBuckets.edges, valueMin),
    valueHigh: bucketOf(valueBuckets.edges, valueMax),
    deadlineLow: bucketOf(columns.deadlineBuckets.edges, deadlineFrom),
    deadlineHigh: bucketOf(columns.deadlineBuckets.edges, deadlineTo),
    openUntilLow: filters.status === 'open' ? bucketOf(openEdges, at) : -1,
    openUntilHigh: filters.status === 'closed' ? bucketOf(openEdges, at) : openEdges.length - 1,
    deadlineTested: filters.deadlineFrom !== undefined || filters.deadlineTo !== undefined,
    deadlineFrom,
    deadlineTo,
    publishedTested: publishedTested && !columns.publishedDescending,
    publishedFrom: seconds(filters.publishedFrom, Number.NEGATIVE_INFINITY),
    publishedTo: seconds(filters.publishedTo, Number.POSITIVE_INFINITY),
  };
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

/** The run of `hits` a publication window leaves: all of them unless found by binary search. */
function windowOf(columns: Columns, plan: Plan, hits: Int32Array): [number, number] {
  const { publishedFrom, publishedTo } = plan;
  if (plan.publishedTested) return [0, hits.length];
  if (publishedFrom === Number.NEGATIVE_INFINITY && publishedTo === Number.POSITIVE_INFINITY)
    return [0, hits.length];
  // Publication dates fall as the sort key rises: the window is the hits from the first one
  // published before `publishedTo` up to the first one published before `publishedFrom`.
  const first = firstBelow(hits, columns.published, publishedTo, 0, hits.length);
  return [first, firstBelow(hits, columns.published, publishedFrom, first, hits.length)];
}

/**
 * A boolean as 0 or 1 (what it is at run time), so that the walk adds tests' outcomes instead of
 * branching on them: a value or deadline range passes about as often as it fails, and a branch
 * the processor cannot predict cost 3.5 times the memory reads of the whole count (556 against
 * 158 µs for 93,000 hits in a range of random values).
 */
const bit = (test: boolean): number => test as unknown as number;

/**
 * The page and the total of `hits[first..end)` (sort keys, ascending) passing `plan`: one pass,
 * tests inline. Every test given is made for every hit and the outcomes are and-ed, with no branch
 * on any of them (but in the CPV codes' inner loop) once the page is full. With the total known
 * already, the pass stops once the page is full.
 */
function walk(
  columns: Columns,
  plan: Plan,
  hits: Int32Array,
  first: number,
  end: number,
  offset: number,
  limit: number,
  knownTotal: number | undefined,
): { sortKeys: number[]; total: number } {
  const { status, openUntil, published, deadline, value, currency, region, buyer, cpvStart, cpvCodes } =
    columns;
  const { statusId, regionId, buyerId, cpvInRange, valueTested, deadlineTested, publishedTested } = plan;
  const { valueMin, valueMax, valueFactors, deadlineFrom, deadlineTo, publishedFrom, publishedTo } = plan;
  const { openAt, closedAt, valueLow, valueHigh, deadlineLow, deadlineHigh, openUntilLow, openUntilHigh } =
    plan;
  const valueBucket = plan.valueBuckets.of;
  const deadlineOf = columns.deadlineBuckets.of;
  const openUntilOf = columns.openUntilBuckets.of;
  const testsOpen = !Number.isNaN(openAt);
  const testsClosed = !Number.isNaN(closedAt);
  const closedId = columns.statuses.indexOf('closed');
  const sortKeys: number[] = [];
  const pageEnd = offset + limit;
  // Known total: nothing past the page is needed.
  if (knownTotal !== undefined && offset >= knownTotal) return { sortKeys, total: knownTotal };
  const stopAt = knownTotal === undefined ? Number.POSITIVE_INFINITY : pageEnd;
  let total = 0;
  for (let index = first; index < end && total < stopAt; index++) {
    const key = hits[index] as number;
    let pass = 1;
    if (statusId !== ANY) pass &= bit(status[key] === statusId);
    if (regionId !== ANY) pass &= bit(region[key] === regionId);
    if (buyerId !== ANY) pass &= bit(buyer[key] === buyerId);
    // NaN (no date, no value) fails every comparison, as NULL does in SQL.
    // Each range by its buckets (see Buckets); in a bound's own bucket, by the column itself.
    if (testsOpen || testsClosed) {
      const bucket = openUntilOf[key] as number;
      const open =
        bucket === openUntilLow || bucket === openUntilHigh
          ? testsOpen
            ? bit((openUntil[key] as number) > openAt)
            : bit((openUntil[key] as number) <= closedAt)
          : bit(bucket > openUntilLow) & bit(bucket < openUntilHigh);
      pass &= testsOpen ? open : bit(status[key] === closedId) | open;
    }
    if (valueTested) {
      const bucket = valueBucket[key] as number;
      if (bucket === valueLow || bucket === valueHigh) {
        // The same product as the SQL's `value_amount * factor`: one IEEE multiplication, so the same number.
        const amount = (value[key] as number) * (valueFactors[currency[key] as number] as number);
        pass &= bit(amount >= valueMin) & bit(amount <= valueMax);
      } else pass &= bit(bucket > valueLow) & bit(bucket < valueHigh);
    }
    if (deadlineTested) {
      const bucket = deadlineOf[key] as number;
      if (bucket === deadlineLow || bucket === deadlineHigh) {
        const due = deadline[key] as number;
        pass &= bit(due >= deadlineFrom) & bit(due < deadlineTo);
      } else pass &= bit(bucket > deadlineLow) & bit(bucket < deadlineHigh);
    }
    if (publishedTested) {
      const on = published[key] as number;
      pass &= bit(on >= publishedFrom) & bit(on < publishedTo);
    }
    if (cpvInRange !== null && pass === 1) {
      let found = 0;
      for (let at = cpvStart[key] as number; at < (cpvStart[key + 1] as number) && found === 0; at++) {
        found = cpvInRange[cpvCodes[at] as number] as number;
      }
      pass = found;
    }
    // Until the page is full (then never again: a branch the processor predicts).
    if (total < pageEnd && pass === 1 && total >= offset) sortKeys.push(key);
    total += pass;
  }
  return { sortKeys, total: knownTotal ?? total };
}

/** The number of `sorted` entries below `bound` (`orEqual`: at or below it). */
function firstAbove(sorted: Float64Array, bound: number, orEqual: boolean): number {
  let from = 0;
  let to = sorted.length;
  while (from < to) {
    const middle = (from + to) >>> 1;
    const entry = sorted[middle] as number;
    if (entry < bound || (orEqual && entry === bound)) from = middle + 1;
    else to = middle;
  }
  return from;
}

/**
 * The first index in [low, high) whose hit was published before `bound` (high when none), for
 * publication dates that never rise along the hits. -Infinity: high; +Infinity: low.
 */
function firstBelow(
  hits: Int32Array,
  published: Float64Array,
  bound: number,
  low: number,
  high: number,
): number {
  let from = low;
  let to = high;
  while (from < to) {
    const middle = (from + to) >>> 1;
    if ((published[hits[middle] as number] as number) < bound) to = middle;
    else from = middle + 1;
  }
  return from;
}

/** A tender's value in the plan's currency (NaN: none, or a currency without a rate). */
function convertedValue(columns: Columns, plan: Plan, key: number): number {
  return (columns.value[key] as number) * (plan.valueFactors[columns.currency[key] as number] as number);
}

/** SQLite's NOCASE: only the 26 ASCII letters are folded. */
function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}

function idOf(ids: Map<string, number>, text: string): number {
  let id = ids.get(text);
  if (id === undefined) {
    id = ids.size;
    ids.set(text, id);
  }
  return id;
}

function grow(array: Int32Array): Int32Array {
  const larger = new Int32Array(array.length * 2);
  larger.set(array);
  return larger;
}

interface Background {
  file: string;
  worker: Worker | null;
  /** The worker failed: the columns are read on the calling thread, as without a background read. */
  failed: boolean;
}

const WORKER_TASK = 'tenderbot/tender-filter-columns';

const columnsTask = workerOfTask<{ file: string; bucketCount: number }>(WORKER_TASK);
// In the worker: the columns, moved (each array owns its whole buffer).
if (columnsTask)
  postVersionedRead(
    columnsTask.file,
    (db) => readColumns(db, columnsTask.bucketCount),
    (columns) =>
      [
        columns.status,
        columns.openUntil,
        columns.published,
        columns.deadline,
        columns.value,
        columns.currency,
        columns.region,
        columns.buyer,
        columns.cpvStart,
        columns.cpvCodes,
        ...[
          columns.deadlineBuckets,
          columns.openUntilBuckets,
          ...Object.values(columns.valueBuckets),
        ].flatMap((buckets) => [buckets.of, buckets.edges]),
      ].map((array) => array.buffer as ArrayBuffer),
  );
