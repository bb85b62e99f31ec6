/*
 * The filter index's columns: each tender's filter values in typed arrays indexed by its sort key,
 * as read from the tenders table (readColumns), with coarse 16-bit copies of the wide ones
 * (Buckets); read in a worker thread started from this file (startColumnsWorker), whose last lines
 * are the worker's. TenderFilterIndex (tender-filter-index.ts) plans and walks searches over them.
 */
import type { Worker } from 'node:worker_threads';
import { VALUE_CURRENCIES, type ValueCurrency } from '../../contract/schemas.ts';
import { conversionFactor, STORED_CURRENCY_WHEN_NONE } from '../money/reference-rates.ts';
import type { SqliteDatabase } from './database.ts';
import { postVersionedRead, startStoreWorker, workerOfTask } from './store-worker.ts';

const NO_ID = -1;
const STORED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

export interface Columns {
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

export function readColumns(db: SqliteDatabase, bucketCount: number): Columns {
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
export interface Buckets {
  /** Per sort key, the bucket of its value; NO_BUCKET for none (NaN), above every bucket. */
  of: Uint16Array;
  /** Bucket b holds the values in [edges[b], edges[b + 1]): ascending, no two alike. */
  edges: Float64Array;
}

/** Buckets a coarse column holds at most. */
export const BUCKETS = 0xfff0;
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
export const NO_BUCKETS: Buckets = { of: new Uint16Array(0), edges: new Float64Array(0) };

/** The bucket `bound` falls in: the last whose edge is at or below it; -1 below the first. */
export function bucketOf(edges: Float64Array, bound: number): number {
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

/** SQLite's NOCASE: only the 26 ASCII letters are folded. */
export function foldAscii(text: string): string {
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

const WORKER_TASK = 'tenderbot/tender-filter-columns';

/** Starts reading `file`'s columns in a worker thread; its one message is a VersionedRead<Columns>. */
export function startColumnsWorker(file: string, bucketCount: number): Worker {
  return startStoreWorker(import.meta.url, WORKER_TASK, { file, bucketCount });
}

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
