import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenderSearchQuery } from '../../../src/contract/schemas.ts';
import { generateDemoData, seededRandom } from '../../../src/service/demo/demo-generator.ts';
import { valueRuleFor } from '../../../src/service/money/reference-rates.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import { PublicRecordsReader, toStoredInstant } from '../../../src/service/store/public-records-reader.ts';
import { PublicRecordsWriter } from '../../../src/service/store/public-records-writer.ts';
import { TenderFilterIndex, type TenderFilters } from '../../../src/service/store/tender-filter-index.ts';

const TODAY = new Date('2026-06-01T00:00:00Z');
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-filter-index-'));
let db: SqliteDatabase;

beforeAll(() => {
  db = openDatabase(join(dir, 'demo.db'));
  generateDemoData(db, { tenders: 4000, today: TODAY });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The plain query, written apart from the reader: every hit of the words, each filter as the
 * contract words it, the status as a person sees it at `now`, newest first (ties by id).
 */
function plainSearch(
  database: SqliteDatabase,
  query: TenderSearchQuery,
  now: Date,
): { ids: string[]; total: number } {
  // Quoted parts are phrases, matched word for word as written; every other word is a prefix of a stem.
  const phrases: string[] = [];
  const rest = (query.q ?? '').replace(/"([^"]*)"/g, (_quoted, inside: string) => {
    const phraseWords = inside.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (phraseWords.length > 0) phrases.push(`"${phraseWords.join(' ')}"`);
    return ' ';
  });
  const words = rest.match(/[\p{L}\p{N}]+/gu) ?? [];
  const where: string[] = [];
  const params: Record<string, unknown> = { now: toStoredInstant(now) };
  if (words.length > 0) {
    where.push('t.sort_key IN (SELECT rowid FROM tender_words WHERE tender_words MATCH @match)');
    params.match = words.map((word) => `"${word}"*`).join(' ');
  }
  if (phrases.length > 0) {
    where.push(
      't.sort_key IN (SELECT rowid FROM tender_exact_words WHERE tender_exact_words MATCH @phrases)',
    );
    params.phrases = phrases.join(' ');
  }
  if (query.status) {
    where.push(
      `(CASE WHEN t.status = 'open' AND t.open_until <= @now THEN 'closed' ELSE t.status END) = @status`,
    );
    params.status = query.status;
  }
  if (query.buyerId) {
    where.push('t.buyer_id = @buyerId');
    params.buyerId = query.buyerId;
  }
  if (query.region) {
    where.push('lower(t.region) = lower(@region)');
    params.region = query.region;
  }
  if (query.cpv) {
    where.push(
      'EXISTS (SELECT 1 FROM tender_cpv c WHERE c.tender_id = t.id AND substr(c.code, 1, length(@cpv)) = @cpv)',
    );
    params.cpv = query.cpv;
  }
  // Dates only in these tests: a day includes the whole of itself.
  for (const [column, from, to] of [
    ['published_at', query.publishedFrom, query.publishedTo],
    ['deadline', query.deadlineFrom, query.deadlineTo],
  ] as const) {
    if (from) {
      where.push(`substr(t.${column}, 1, 10) >= @${column}From`);
      params[`${column}From`] = from;
    }
    if (to) {
      where.push(`substr(t.${column}, 1, 10) <= @${column}To`);
      params[`${column}To`] = to;
    }
  }
  const rows = database
    .prepare(
      `SELECT t.id, t.value_amount AS amount, t.value_currency AS currency FROM tenders t
       WHERE ${where.join(' AND ')} ORDER BY t.published_at DESC, t.id`,
    )
    .all(params) as { id: string; amount: number | null; currency: string | null }[];
  // Value bounds in the query's currency (GBP when none); an amount in another currency is
  // converted at the stated reference rates, one with no rate is never within a bound.
  const boundCurrency = query.currency ?? 'GBP';
  const rates: Record<string, number> = valueRuleFor(boundCurrency).rates;
  const ids = rows
    .filter(({ amount, currency }) => {
      if (query.valueMin === undefined && query.valueMax === undefined) return true;
      if (amount === null) return false;
      const from = currency ?? 'GBP';
      const fromRate = rates[from];
      const toRate = rates[boundCurrency] as number;
      if (from !== boundCurrency && fromRate === undefined) return false;
      const inBoundCurrency = from === boundCurrency ? amount : amount * (toRate / (fromRate as number));
      return (
        (query.valueMin === undefined || inBoundCurrency >= query.valueMin) &&
        (query.valueMax === undefined || inBoundCurrency <= query.valueMax)
      );
    })
    .map((row) => row.id);
  return { ids: ids.slice(query.offset, query.offset + query.limit), total: ids.length };
}

function day(offsetDays: number): string {
  return new Date(TODAY.getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/** Every filter on its own, with values that match many, few and no tenders. */
function singleFilters(database: SqliteDatabase): Partial<TenderSearchQuery>[] {
  const regions = database
    .prepare('SELECT DISTINCT region FROM tenders WHERE region IS NOT NULL ORDER BY region')
    .pluck()
    .all() as string[];
  const buyers = database
    .prepare('SELECT buyer_id FROM tenders GROUP BY buyer_id ORDER BY count(*) DESC, buyer_id LIMIT 3')
    .pluck()
    .all() as string[];
  const codes = database
    .prepare('SELECT DISTINCT code FROM tender_cpv ORDER BY code')
    .pluck()
    .all() as string[];
  expect(regions.length).toBeGreaterThan(3);
  expect(buyers.length).toBe(3);
  expect(codes.length).toBeGreaterThan(3);
  const firstCode = codes[0] as string;
  return [
    // No filter at all: the word's kept hits, sliced (TenderFilterIndex.searchWords).
    {},
    ...(['open', 'closed', 'awarded', 'cancelled', 'planned'] as const).map((status) => ({ status })),
    ...regions.map((region) => ({ region })),
    { region: (regions[0] as string).toUpperCase() },
    { region: 'Nowhere at all' },
    ...buyers.map((buyerId) => ({ buyerId })),
    { buyerId: '00000000-0000-4000-8000-000000000000' },
    { cpv: firstCode.slice(0, 1) },
    { cpv: firstCode.slice(0, 2) },
    { cpv: firstCode.slice(0, 8) },
    { cpv: '1' },
    { valueMin: 100_000 },
    { valueMax: 50_000 },
    { valueMin: 20_000, valueMax: 200_000 },
    { valueMin: 10_000_000_000 },
    { deadlineFrom: day(0) },
    { deadlineTo: day(0) },
    { deadlineFrom: day(-30), deadlineTo: day(14) },
    { publishedFrom: day(-90) },
    { publishedFrom: day(-200), publishedTo: day(-100) },
  ];
}

const WORDS = ['cleaning', 'services', 'clean lond', 'catering', 'framework', 'zzzznothing'];

/**
 * How a page's ids are compared with the plain query's: in the same order, or as sets where only
 * which tenders are found is in question (or the plain query orders otherwise than the reader, as
 * with publication dates out of sort-key order).
 */
type IdComparison = 'in order' | 'as sets';

/** A reader's answer is the plain query's: the same total and the same ids. */
function expectPlainAnswer(
  fast: { total: number; items: readonly { id: string }[] },
  plain: { total: number; ids: string[] },
  label: string,
  comparison: IdComparison,
): void {
  expect(fast.total, label).toBe(plain.total);
  const ids = fast.items.map((tender) => tender.id);
  if (comparison === 'in order') expect(ids, label).toEqual(plain.ids);
  else expect(ids.sort(), label).toEqual([...plain.ids].sort());
}

/** The reader's answer to `query` at `now` is the plain query's on `database`: its total, returned. */
function expectSameAsPlain(
  reader: PublicRecordsReader,
  query: TenderSearchQuery,
  now: Date,
  database: SqliteDatabase = db,
  comparison: IdComparison = 'in order',
): number {
  const plain = plainSearch(database, query, now);
  const label = `${JSON.stringify(query)} at ${now.toISOString()}`;
  expectPlainAnswer(reader.searchTenders(query, now), plain, label, comparison);
  return plain.total;
}

describe('word search with and without filters (TenderFilterIndex) against the plain query on the same data', () => {
  it('gives the same total and the same page for each word with each single filter, at two instants', () => {
    const reader = new PublicRecordsReader(db);
    const filters = singleFilters(db);
    let nonEmpty = 0;
    for (const now of [TODAY, new Date(TODAY.getTime() + 40 * 86_400_000 + 1234)]) {
      for (const q of WORDS) {
        for (const filter of filters) {
          const total = expectSameAsPlain(reader, { q, ...filter, limit: 20, offset: 0 }, now);
          if (total > 0) nonEmpty++;
        }
      }
    }
    // Most combinations find something, so the comparison is not of empty lists.
    expect(nonEmpty).toBeGreaterThan(filters.length * 4);
  });

  it('pages the same way: every page of a filtered search, and a page past the end', () => {
    const reader = new PublicRecordsReader(db);
    for (const filter of [{}, { status: 'closed' as const }, { valueMin: 50_000 }, { cpv: '9' }]) {
      const whole = plainSearch(db, { q: 'services', ...filter, limit: 100_000, offset: 0 }, TODAY);
      expect(whole.total).toBeGreaterThan(60);
      const seen: string[] = [];
      for (let offset = 0; offset < whole.total + 30; offset += 30) {
        const page = reader.searchTenders({ q: 'services', ...filter, limit: 30, offset }, TODAY);
        expect(page.total).toBe(whole.total);
        seen.push(...page.items.map((tender) => tender.id));
      }
      expect(seen).toEqual(whole.ids);
    }
  });

  it('gives the same answers for random combinations of filters, with and without word hits kept', () => {
    const random = seededRandom(11);
    const filters = singleFilters(db);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const remembering = new PublicRecordsReader(db);
    const forgetting = new PublicRecordsReader(db, 0);
    let nonEmpty = 0;
    for (let round = 0; round < 300; round++) {
      const combined: Partial<TenderSearchQuery> = {};
      for (let count = 1 + Math.floor(random() * 3); count > 0; count--)
        Object.assign(combined, pick(filters));
      const query = {
        q: pick(WORDS),
        ...combined,
        limit: pick([1, 20, 100]),
        offset: pick([0, 0, 5, 40]),
      };
      const now = new Date(TODAY.getTime() + Math.floor(random() * 90) * 86_400_000);
      if (expectSameAsPlain(remembering, query, now) > 0) nonEmpty++;
      expectSameAsPlain(forgetting, query, now);
    }
    expect(nonEmpty).toBeGreaterThan(50);
  });

  it('gives the same answers on the service’s cold path: nothing kept, the columns read by the worker, words and phrases in random combinations', async () => {
    // As `sandbox serve --count-cache 0` runs: no totals and no word hits kept between searches,
    // the filter columns read in a worker thread from the file.
    const cold = new PublicRecordsReader(db, 0);
    cold.buildFilterIndexInBackground(join(dir, 'demo.db'));
    try {
      expect(await cold.filterIndexReady()).toBe(true);
      const random = seededRandom(24);
      const filters = singleFilters(db);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
      const texts = [...WORDS, '"cleaning services"', '"office cleaning" lond', 'services "window cleaning"'];
      let nonEmpty = 0;
      for (let round = 0; round < 300; round++) {
        const combined: Partial<TenderSearchQuery> = {};
        for (let count = Math.floor(random() * 4); count > 0; count--) Object.assign(combined, pick(filters));
        const query = {
          q: pick(texts),
          ...combined,
          limit: pick([1, 20, 100]),
          offset: pick([0, 0, 5, 40]),
        };
        const now = new Date(TODAY.getTime() + Math.floor(random() * 90) * 86_400_000 + 4321);
        if (expectSameAsPlain(cold, query, now) > 0) nonEmpty++;
      }
      expect(nonEmpty).toBeGreaterThan(50);
    } finally {
      await cold.close();
    }
  });

  it('gives the same answers through the search thread (hits and walk in a thread of their own), nothing kept or kept', async () => {
    const file = join(dir, 'demo.db');
    for (const countCacheSize of [0, undefined]) {
      const threaded = new PublicRecordsReader(db, countCacheSize);
      threaded.searchInThread(file);
      try {
        expect(await threaded.searchThreadReady()).toBe(true);
        const random = seededRandom(countCacheSize === 0 ? 31 : 32);
        const filters = singleFilters(db);
        const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
        let nonEmpty = 0;
        let sent = 0;
        for (let round = 0; round < 200; round++) {
          const combined: Partial<TenderSearchQuery> = {};
          for (let count = Math.floor(random() * 4); count > 0; count--)
            Object.assign(combined, pick(filters));
          const query = {
            q: pick(WORDS),
            ...combined,
            limit: pick([1, 20, 100]),
            offset: pick([0, 0, 5, 40]),
          };
          const now = new Date(TODAY.getTime() + Math.floor(random() * 90) * 86_400_000 + 1234);
          const plain = plainSearch(db, query, now);
          const label = `${JSON.stringify(query)} at ${now.toISOString()}`;
          expectPlainAnswer(await threaded.searchTendersAsync(query, now), plain, label, 'in order');
          if (plain.total > 0) nonEmpty++;
          sent++;
        }
        expect(nonEmpty).toBeGreaterThan(40);
        // Every one was answered by the thread, none searched here instead.
        expect(threaded.searchThreadAnswers).toBe(sent);
      } finally {
        await threaded.close();
      }
    }
  });

  it('sees tenders written by another connection to the same file, and a status moved by the clock', () => {
    const path = join(dir, 'two-connections.db');
    const serving = openDatabase(path);
    const writing = openDatabase(path);
    try {
      generateDemoData(writing, { tenders: 500, today: TODAY });
      const reader = new PublicRecordsReader(serving);
      const query: TenderSearchQuery = { q: 'cleaning', status: 'open', limit: 20, offset: 0 };
      const before = reader.searchTenders(query, TODAY);
      expect(before.total).toBeGreaterThan(0);

      const writer = new PublicRecordsWriter(writing);
      writing.transaction(() => {
        writer.writeRelease({
          id: 'ocds-test-new-cleaning',
          releaseDate: toStoredInstant(TODAY),
          title: 'Window cleaning for the new library',
          description: null,
          status: 'open',
          buyer: null,
          value: null,
          deadline: '2026-06-10T12:00:00Z',
          region: 'Wales',
          cpvCodes: [],
          sourceName: 'test',
          sourceId: 'new-cleaning',
          url: null,
          frameworkId: null,
          awards: [],
          framework: null,
        });
        writer.finish();
      })();
      const after = reader.searchTenders(query, TODAY);
      expect(after.total).toBe(before.total + 1);
      expect(after.items[0]?.id).toBe('ocds-test-new-cleaning');
      expect(reader.searchTenders({ ...query, region: 'WALES' }, TODAY).items[0]?.id).toBe(
        'ocds-test-new-cleaning',
      );
      // One second before its deadline it is open; at its deadline it is not.
      expect(
        reader.searchTenders({ ...query, region: 'wales' }, new Date('2026-06-10T11:59:59Z')).items[0]?.id,
      ).toBe('ocds-test-new-cleaning');
      const closed = reader.searchTenders({ ...query, region: 'wales' }, new Date('2026-06-10T12:00:00Z'));
      expect(closed.items.map((tender) => tender.id)).not.toContain('ocds-test-new-cleaning');
      const closedNow = reader.searchTenders(
        { ...query, status: 'closed', region: 'wales' },
        new Date('2026-06-10T12:00:00Z'),
      );
      expect(closedNow.items.map((tender) => tender.id)).toContain('ocds-test-new-cleaning');
    } finally {
      serving.close();
      writing.close();
    }
  });
});

describe('a value range or a deadline window alone, counted from the word’s sorted values', () => {
  it('counts exactly as the plain query does, bounds included or not as the contract says, reversed bounds too', () => {
    const reader = new PublicRecordsReader(db);
    const values = db
      .prepare(
        'SELECT DISTINCT value_amount FROM tenders WHERE value_amount IS NOT NULL ORDER BY 1 LIMIT 5 OFFSET 100',
      )
      .pluck()
      .all() as number[];
    expect(values.length).toBe(5);
    const [low, , middle, , high] = values as [number, number, number, number, number];
    let nonEmpty = 0;
    for (const q of WORDS)
      for (const filter of [
        // Exactly a stored value at either end: `valueMin` and `valueMax` both include it.
        { valueMin: low, valueMax: high },
        { valueMin: middle, valueMax: middle },
        { valueMin: high, valueMax: low },
        { valueMin: middle },
        { valueMax: middle },
        { deadlineFrom: day(-10), deadlineTo: day(20) },
        { deadlineFrom: day(20), deadlineTo: day(-10) },
        { deadlineTo: day(-400) },
      ])
        for (const offset of [0, 7]) {
          // Twice: the second time the total is the kept one and the walk stops at the page.
          expectSameAsPlain(reader, { q, ...filter, limit: 5, offset }, TODAY);
          if (expectSameAsPlain(reader, { q, ...filter, limit: 5, offset }, TODAY) > 0) nonEmpty++;
        }
    expect(nonEmpty).toBeGreaterThan(20);
  });
});

describe('value bounds over tenders in several currencies', () => {
  it('lists a tender under a bound only when its amount converted by the stated rule passes, as the plain query counts', () => {
    // GBP, EUR, CAD, USD, a currency without a rate, and none recorded (shown as GBP).
    withDemoDatabase(
      'currencies.db',
      900,
      `UPDATE tenders SET value_currency = CASE sort_key % 6 WHEN 0 THEN 'GBP' WHEN 1 THEN 'EUR'
           WHEN 2 THEN 'CAD' WHEN 3 THEN 'USD' WHEN 4 THEN 'JPY' ELSE NULL END`,
      (other) => {
        const reader = new PublicRecordsReader(other);
        const index = new TenderFilterIndex(other);
        const values = other
          .prepare('SELECT value_amount FROM tenders WHERE value_amount IS NOT NULL ORDER BY 1')
          .pluck()
          .all() as number[];
        const bounds = [0.1, 0.3, 0.5, 0.7, 0.9].map(
          (share) => values[Math.floor(values.length * share)] as number,
        );
        let nonEmpty = 0;
        for (const q of ['services', 'cleaning', 'clean lond'])
          for (const currency of [undefined, 'GBP', 'EUR', 'CAD', 'USD'] as const)
            for (const filter of [
              { valueMin: bounds[2] },
              { valueMax: bounds[1] },
              { valueMin: bounds[0], valueMax: bounds[3] },
              { valueMin: bounds[4], region: 'Wales' },
              { valueMin: bounds[1], status: 'closed' as const },
            ]) {
              const query: TenderSearchQuery = { q, ...filter, currency, limit: 10_000, offset: 0 };
              const label = JSON.stringify(query);
              const total = expectSameAsPlain(reader, query, TODAY, other, 'as sets');
              // Again: the second answer is counted from the word's values kept sorted, or a kept total.
              expectSameAsPlain(reader, query, TODAY, other, 'as sets');
              // The index itself answers (not SQL in its place).
              const match = q
                .split(' ')
                .map((word) => `"${word}"*`)
                .join(' ');
              const found = index.search(
                match,
                {
                  valueMin: filter.valueMin,
                  valueMax: filter.valueMax,
                  valueCurrency: currency,
                  region: 'region' in filter ? filter.region : undefined,
                },
                toStoredInstant(TODAY),
                0,
                10_000,
              );
              if (!('status' in filter)) expect(found?.total, label).toBe(total);
              if (total > 0) nonEmpty++;
            }
        expect(nonEmpty).toBeGreaterThan(40);
      },
    );
  });
});

describe('a publication window when publication dates are not in sort-key order', () => {
  it('tests the window hit by hit and counts exactly as the plain query does', () => {
    // Dates that break the newest-first order of the sort keys (as data written apart could).
    withDemoDatabase(
      'out-of-order.db',
      800,
      `UPDATE tenders SET published_at = CASE sort_key % 3 WHEN 0 THEN '2019-03-01T10:00:00Z'
           ELSE '2027-01-01T09:00:00Z' END WHERE sort_key % 17 = 5`,
      (other) => {
        const reader = new PublicRecordsReader(other);
        let nonEmpty = 0;
        for (const window of [
          { publishedFrom: '2019-01-01', publishedTo: '2019-12-31' },
          { publishedFrom: '2026-12-01' },
          { publishedTo: '2026-01-01' },
          { publishedFrom: day(-120), publishedTo: day(-30) },
        ])
          for (const extra of [{}, { status: 'closed' as const }, { valueMin: 50_000 }]) {
            const query: TenderSearchQuery = { q: 'services', ...window, ...extra, limit: 10_000, offset: 0 };
            // The plain query orders by the (changed) date, the reader by sort key: compare the sets.
            if (expectSameAsPlain(reader, query, TODAY, other, 'as sets') > 0) nonEmpty++;
          }
        expect(nonEmpty).toBeGreaterThan(6);
      },
    );
  });
});

describe('ranges over values many tenders share (each bucket of the coarse columns holds many)', () => {
  it('counts values, deadlines and open or closed at a bound equal to a stored value exactly as the plain query does', () => {
    // Eight values, deadlines and closing instants shared by a hundred tenders each, in several
    // currencies: a bound equal to one of them, between two, below and above all of them.
    withDemoDatabase(
      'shared-values.db',
      900,
      `UPDATE tenders SET
           value_amount = CASE WHEN sort_key % 9 = 0 THEN NULL ELSE 10000 * (1 + sort_key % 8) END,
           value_currency = CASE sort_key % 3 WHEN 0 THEN 'GBP' WHEN 1 THEN 'EUR' ELSE 'CAD' END,
           deadline = CASE WHEN sort_key % 11 = 0 THEN NULL
             ELSE strftime('%Y-%m-%dT%H:%M:%SZ', '2026-06-01', '+' || (sort_key % 8) || ' days') END,
           open_until = CASE WHEN status = 'open'
             THEN strftime('%Y-%m-%dT%H:%M:%SZ', '2026-06-01', '+' || (sort_key % 8) || ' days')
             ELSE open_until END`,
      (other) => {
        const reader = new PublicRecordsReader(other, 0);
        const dayAt = (days: number) => new Date(Date.UTC(2026, 5, 1) + days * 86_400_000);
        const dateOf = (at: Date) => at.toISOString().slice(0, 10);
        let nonEmpty = 0;
        const filters: Partial<TenderSearchQuery>[] = [
          ...[0, 10_000, 30_000, 35_000, 80_000, 90_000].flatMap((bound) => [
            { valueMin: bound },
            { valueMax: bound },
            { valueMin: bound, valueMax: bound + 20_000 },
            { valueMin: bound, currency: 'EUR' as const },
            { valueMax: bound, currency: 'CAD' as const },
          ]),
          // Dates (as the plain query here takes them): from the day's first second, to its last.
          ...[-1, 0, 2, 3, 7, 9].flatMap((days) => [
            { deadlineFrom: dateOf(dayAt(days)) },
            { deadlineTo: dateOf(dayAt(days)) },
            { deadlineFrom: dateOf(dayAt(days)), deadlineTo: dateOf(dayAt(days + 2)) },
          ]),
        ];
        for (const q of ['services', 'cleaning'])
          for (const filter of filters) {
            const query: TenderSearchQuery = { q, ...filter, limit: 30, offset: 0 };
            if (expectSameAsPlain(reader, query, TODAY, other) > 0) nonEmpty++;
          }
        // Open and closed at each stored closing instant, a second before and after it.
        for (const days of [0, 3, 7])
          for (const offsetMs of [-1000, 0, 1000])
            for (const status of ['open', 'closed'] as const) {
              const query: TenderSearchQuery = { q: 'services', status, limit: 30, offset: 0 };
              expectSameAsPlain(reader, query, new Date(dayAt(days).getTime() + offsetMs), other);
            }
        expect(nonEmpty).toBeGreaterThan(80);
      },
    );
  });
});

/** `run` on a database of `tenders` demo tenders changed by `changes` (SQL), closed after. */
function withDemoDatabase(
  name: string,
  tenders: number,
  changes: string,
  run: (other: SqliteDatabase) => void,
): void {
  const other = openDatabase(join(dir, name));
  try {
    generateDemoData(other, { tenders, today: TODAY });
    other.prepare(changes).run();
    run(other);
  } finally {
    other.close();
  }
}

describe('regions past the ids a byte holds (the column then held in 16 bits)', () => {
  it('counts every region, and tenders with none, exactly as the plain query does', () => {
    // 300 regions: more ids than a byte holds beside its value for none; every 7th tender has none.
    withDemoDatabase(
      'many-regions.db',
      900,
      `UPDATE tenders SET region = CASE WHEN sort_key % 7 = 0 THEN NULL
           ELSE 'Region ' || (sort_key % 300) END`,
      (other) => {
        expect(
          other.prepare('SELECT count(DISTINCT region) FROM tenders').pluck().get() as number,
        ).toBeGreaterThan(255);
        const reader = new PublicRecordsReader(other, 0);
        let nonEmpty = 0;
        // Every region (each id, whichever the columns gave it), one not there, and a few with more filters.
        const every = Array.from({ length: 301 }, (_, n) => ({ region: `Region ${n}` }));
        const combined = ['region 254', 'Region 255', 'Region 299'].flatMap((region) => [
          { region, status: 'open' as const },
          { region, valueMin: 20_000 },
        ]);
        for (const filters of [...every, ...combined]) {
          const query: TenderSearchQuery = { q: 'services', ...filters, limit: 50, offset: 0 };
          if (expectSameAsPlain(reader, query, TODAY, other) > 0) nonEmpty++;
        }
        // Region 300 does not exist: the rest must have found tenders for the test to mean anything.
        expect(nonEmpty).toBeGreaterThan(250);
      },
    );
  });
});

describe('the filter columns read in a worker thread (TenderFilterIndex.buildInBackground)', () => {
  const FILTERED: TenderFilters[] = [
    { status: 'closed' },
    { valueMin: 50_000 },
    { cpvLow: '9', cpvHigh: '9:' },
    { deadlineFrom: '2026-05-01T00:00:00Z', deadlineTo: '2026-07-01T00:00:00Z' },
  ];
  const NOW = toStoredInstant(TODAY);

  it('answers null (the reader then uses SQL) until the columns arrive, then exactly what a columns read in place gives', async () => {
    const inPlace = new TenderFilterIndex(db);
    const background = new TenderFilterIndex(db);
    background.buildInBackground(join(dir, 'demo.db'));
    try {
      // The worker's answer can only arrive on a later turn of the event loop.
      for (const filters of FILTERED)
        expect(background.search('"cleaning"*', filters, NOW, 0, 20)).toBeNull();
      expect(await background.whenReady()).toBe(true);
      let found = 0;
      for (const match of ['"cleaning"*', '"services"*', '"clean"* "lond"*'])
        for (const filters of FILTERED)
          for (const [offset, limit] of [
            [0, 20],
            [15, 100],
          ] as const) {
            const expected = inPlace.search(match, filters, NOW, offset, limit);
            expect(expected).not.toBeNull();
            expect(background.search(match, filters, NOW, offset, limit)).toEqual(expected);
            found += expected?.total ?? 0;
          }
      expect(found).toBeGreaterThan(100);
    } finally {
      await background.close();
    }
  });

  it('gives the plain query’s answers through the reader before and after the columns arrive', async () => {
    const reader = new PublicRecordsReader(db);
    reader.buildFilterIndexInBackground(join(dir, 'demo.db'));
    try {
      const queries: TenderSearchQuery[] = [
        { q: 'cleaning', status: 'closed', limit: 20, offset: 0 },
        { q: 'services', valueMin: 50_000, limit: 30, offset: 30 },
        { q: 'catering', cpv: '9', limit: 20, offset: 0 },
      ];
      for (const query of queries) expectSameAsPlain(reader, query, TODAY);
      expect(await reader.filterIndexReady()).toBe(true);
      for (const query of queries) expectSameAsPlain(reader, query, TODAY);
    } finally {
      await reader.close();
    }
  });

  it('reads them again in the worker when another connection changes the records, using SQL meanwhile', async () => {
    const path = join(dir, 'background-two-connections.db');
    const serving = openDatabase(path);
    const writing = openDatabase(path);
    const index = new TenderFilterIndex(serving);
    try {
      generateDemoData(writing, { tenders: 300, today: TODAY });
      index.buildInBackground(path);
      expect(await index.whenReady()).toBe(true);
      const filters: TenderFilters = { region: 'wales' };
      const before = index.search('"cleaning"*', filters, NOW, 0, 20);
      expect(before).not.toBeNull();
      const writer = new PublicRecordsWriter(writing);
      writing.transaction(() => {
        writer.writeRelease({
          id: 'ocds-test-background-cleaning',
          releaseDate: toStoredInstant(TODAY),
          title: 'Office cleaning for the new archive',
          description: null,
          status: 'open',
          buyer: null,
          value: null,
          deadline: '2026-06-10T12:00:00Z',
          region: 'Wales',
          cpvCodes: [],
          sourceName: 'test',
          sourceId: 'background-cleaning',
          url: null,
          frameworkId: null,
          awards: [],
          framework: null,
        });
        writer.finish();
      })();
      expect(index.search('"cleaning"*', filters, NOW, 0, 20)).toBeNull();
      expect(await index.whenReady()).toBe(true);
      const after = index.search('"cleaning"*', filters, NOW, 0, 20);
      expect(after?.total).toBe((before?.total ?? 0) + 1);
      expect(after).toEqual(new TenderFilterIndex(serving).search('"cleaning"*', filters, NOW, 0, 20));
    } finally {
      await index.close();
      serving.close();
      writing.close();
    }
  });

  it('drops the columns quietly when the database was closed before they arrived', async () => {
    const path = join(dir, 'closed-early.db');
    const early = openDatabase(path);
    generateDemoData(early, { tenders: 200, today: TODAY });
    const index = new TenderFilterIndex(early);
    index.buildInBackground(path);
    early.close();
    // The worker still answers: nothing is kept, and nothing may throw from its message handler
    // (vitest fails a file on an uncaught error).
    expect(await index.whenReady()).toBe(false);
    await index.close();
  });

  it('reads the columns in place when the worker cannot (a file it cannot open), and on :memory:', async () => {
    const broken = new TenderFilterIndex(db);
    broken.buildInBackground(join(dir, 'no-such-file.db'));
    expect(await broken.whenReady()).toBe(false);
    const expected = new TenderFilterIndex(db).search('"cleaning"*', { status: 'closed' }, NOW, 0, 20);
    expect(broken.search('"cleaning"*', { status: 'closed' }, NOW, 0, 20)).toEqual(expected);
    await broken.close();

    const memory = openDatabase(':memory:');
    try {
      generateDemoData(memory, { tenders: 200, today: TODAY });
      const index = new TenderFilterIndex(memory);
      index.buildInBackground(':memory:');
      expect(index.search('"cleaning"*', { status: 'closed' }, NOW, 0, 20)).not.toBeNull();
    } finally {
      memory.close();
    }
  });
});
