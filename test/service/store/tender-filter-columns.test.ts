/*
 * The filter index with coarse columns that hold many distinct values a bucket (64 buckets here,
 * as 65,520 do over a million tenders), held to plain SQL at, around and between stored values,
 * and at the id counts where a column's width changes (a byte, 16 bits).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/service/demo/demo-generator.ts';
import { conversionFactor } from '../../../src/service/money/reference-rates.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import { TenderFilterIndex, type TenderFilters } from '../../../src/service/store/tender-filter-index.ts';

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-filter-buckets-'));
let db: SqliteDatabase;
const COUNT = 6000;
const REGIONS = 300;
const BUYERS = 40;
/** Buckets a coarse column holds: about a hundred distinct values each here. */
const BUCKET_COUNT = 64;
const BASE = Date.UTC(2026, 5, 1) / 1000;
const iso = (s: number) => `${new Date(s * 1000).toISOString().slice(0, 19)}Z`;
const CURRENCIES = ['GBP', 'EUR', 'CAD', 'USD', 'JPY', null];

function build(path: string, count: number, regions: number, buyers: number): SqliteDatabase {
  const database = openDatabase(path);
  const random = seededRandom(7);
  database.pragma('foreign_keys = OFF');
  const insert = database.prepare(`INSERT INTO tenders (sort_key, id, title, status, buyer_id, value_amount,
    value_currency, published_at, deadline, region, source_name, source_id, open_until)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'test', ?, ?)`);
  database.transaction(() => {
    for (let key = 0; key < count; key++) {
      const status = ['open', 'closed', 'awarded'][key % 3] as string;
      const roll = random();
      // Values: continuous, shared, -0, 0, huge, none.
      const value =
        key % 13 === 0
          ? null
          : key % 17 === 0
            ? -0
            : key % 19 === 0
              ? 0
              : key % 5 === 0
                ? 10_000 * (1 + (key % 8))
                : Math.round(roll * 5_000_000 * 100) / 100;
      const deadline = key % 11 === 0 ? null : BASE + Math.floor(random() * 3 * 86_400);
      const openUntil = status === 'open' && deadline !== null ? deadline : null;
      insert.run(
        key,
        `t${key}`,
        key % 2 === 0 ? 'alpha cleaning' : 'alpha catering',
        status,
        key % 9 === 0 ? null : `b${key % buyers}`,
        value,
        CURRENCIES[key % CURRENCIES.length] ?? null,
        iso(BASE - key * 60),
        deadline === null ? null : iso(deadline),
        key % 7 === 0 ? null : `R${key % regions}`,
        `s${key}`,
        openUntil === null ? null : iso(openUntil),
      );
    }
  })();
  database.exec("INSERT INTO tender_words (tender_words) VALUES ('rebuild')");
  database.exec("INSERT INTO tender_words (tender_words) VALUES ('optimize')");
  return database;
}

beforeAll(() => {
  db = build(join(dir, 'coarse.db'), COUNT, REGIONS, BUYERS);
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function plain(database: SqliteDatabase, match: string, f: TenderFilters, now: string): number[] {
  const where = ['sort_key IN (SELECT rowid FROM tender_words WHERE tender_words MATCH @match)'];
  const params: Record<string, unknown> = { match, now };
  if (f.status === 'open') where.push('open_until > @now');
  else if (f.status === 'closed') where.push("(status = 'closed' OR open_until <= @now)");
  else if (f.status) where.push(`status = '${f.status}'`);
  if (f.region) where.push(`region = '${f.region}' COLLATE NOCASE`);
  if (f.buyerId) where.push(`buyer_id = '${f.buyerId}'`);
  if (f.valueMin !== undefined || f.valueMax !== undefined) {
    const to = f.valueCurrency ?? 'GBP';
    const cases = ['GBP', 'EUR', 'CAD', 'USD']
      .map((from) => `WHEN '${from}' THEN ${conversionFactor(from, to).toPrecision(17)}`)
      .join(' ');
    const converted = `(value_amount * (CASE coalesce(value_currency, 'GBP') ${cases} END))`;
    if (f.valueMin !== undefined) where.push(`${converted} >= ${f.valueMin.toPrecision(17)}`);
    if (f.valueMax !== undefined) where.push(`${converted} <= ${f.valueMax.toPrecision(17)}`);
  }
  if (f.deadlineFrom) where.push(`deadline >= '${f.deadlineFrom}'`);
  if (f.deadlineTo) where.push(`deadline < '${f.deadlineTo}'`);
  return database
    .prepare(`SELECT sort_key FROM tenders WHERE ${where.join(' AND ')} ORDER BY sort_key`)
    .pluck()
    .all(params) as number[];
}

function compare(index: TenderFilterIndex, database: SqliteDatabase, f: TenderFilters, now: string): number {
  const match = '"alpha"*';
  const expected = plain(database, match, f, now);
  for (const [offset, limit] of [
    [0, 50],
    [37, 20],
    [expected.length - 3, 10],
  ] as const) {
    const found = index.search(match, f, now, Math.max(0, offset), limit);
    const label = `${JSON.stringify(f)} at ${now} [${offset}, ${limit})`;
    expect(found, label).not.toBeNull();
    expect(found?.total, label).toBe(expected.length);
    expect(found?.sortKeys, label).toEqual(expected.slice(Math.max(0, offset), Math.max(0, offset) + limit));
  }
  return expected.length;
}

describe('coarse buckets (a bucket holds several distinct values)', () => {
  it('values at, around and between stored values in every currency, as plain SQL', () => {
    const index = new TenderFilterIndex(db, 0, BUCKET_COUNT);
    const random = seededRandom(3);
    const stored = db
      .prepare('SELECT DISTINCT value_amount FROM tenders WHERE value_amount IS NOT NULL ORDER BY 1')
      .pluck()
      .all() as number[];
    expect(stored.length).toBeGreaterThan(BUCKET_COUNT * 50);
    let nonEmpty = 0;
    const bounds: number[] = [0, -0, 1e-300, 10_000, 80_000];
    for (let n = 0; n < 30; n++) {
      const v = stored[Math.floor(random() * stored.length)] as number;
      bounds.push(v, v + v * Number.EPSILON, v - v * Number.EPSILON, v + 0.005);
    }
    for (const currency of [undefined, 'EUR', 'CAD', 'USD'] as const)
      for (let n = 0; n < 30; n++) {
        const a = bounds[Math.floor(random() * bounds.length)] as number;
        const b = bounds[Math.floor(random() * bounds.length)] as number;
        const kinds: TenderFilters[] = [
          { valueMin: a, valueCurrency: currency },
          { valueMax: a, valueCurrency: currency },
          { valueMin: Math.min(a, b), valueMax: Math.max(a, b), valueCurrency: currency },
          { valueMin: a, valueMax: a, valueCurrency: currency },
        ];
        for (const f of kinds) if (compare(index, db, f, iso(BASE)) > 0) nonEmpty++;
      }
    expect(nonEmpty).toBeGreaterThan(200);
  });

  it('deadlines and open/closed at and around stored instants, as plain SQL', () => {
    const index = new TenderFilterIndex(db, 0, BUCKET_COUNT);
    const random = seededRandom(5);
    let nonEmpty = 0;
    for (let n = 0; n < 40; n++) {
      const at = BASE + Math.floor(random() * 3 * 86_400);
      const later = at + Math.floor(random() * 86_400);
      for (const f of [
        { deadlineFrom: iso(at) },
        { deadlineTo: iso(at) },
        { deadlineFrom: iso(at), deadlineTo: iso(later) },
        { deadlineFrom: iso(at), deadlineTo: iso(at + 1) },
      ] as TenderFilters[])
        if (compare(index, db, f, iso(BASE)) > 0) nonEmpty++;
      for (const status of ['open', 'closed'] as const)
        for (const now of [at - 1, at, at + 1]) compare(index, db, { status }, iso(now));
      compare(index, db, { status: 'open', valueMin: 100_000, deadlineTo: iso(later) }, iso(at));
    }
    expect(nonEmpty).toBeGreaterThan(60);
  });

  it('region ids past a byte (16 bits), with none', () => {
    const index = new TenderFilterIndex(db, 0, BUCKET_COUNT);
    for (const n of [0, 1, 39, 40, 253, 254, 255, 256, 299, 300])
      for (const f of [
        { region: `r${n}` },
        { buyerId: `b${n}` },
        { region: `R${n}`, status: 'open' as const },
      ])
        compare(index, db, f, iso(BASE));
  });

  it('the same through the worker thread (arrays moved)', async () => {
    const background = new TenderFilterIndex(db, 0, BUCKET_COUNT);
    background.buildInBackground(join(dir, 'coarse.db'));
    try {
      expect(await background.whenReady()).toBe(true);
      for (const f of [
        { valueMin: 1_234_567.89 },
        { valueMax: 20_000, valueCurrency: 'EUR' as const },
        { region: 'R299' },
        { buyerId: 'b39' },
        { status: 'open' as const, deadlineTo: iso(BASE + 86_400) },
      ] as TenderFilters[])
        compare(background, db, f, iso(BASE + 3600));
    } finally {
      await background.close();
    }
  });
});

describe('small id counts', () => {
  it('254 regions (byte) and 255 buyers (16 bits)', () => {
    const small = build(join(dir, 'small.db'), 3000, 254, 255);
    try {
      const index = new TenderFilterIndex(small, 0, BUCKET_COUNT);
      for (const n of [0, 252, 253, 254, 255])
        for (const f of [{ region: `R${n}` }, { buyerId: `b${n}` }]) compare(index, small, f, iso(BASE));
    } finally {
      small.close();
    }
    const other = build(join(dir, 'small2.db'), 3000, 255, 254);
    try {
      const index = new TenderFilterIndex(other, 0, BUCKET_COUNT);
      for (const n of [0, 252, 253, 254, 255])
        for (const f of [{ region: `R${n}` }, { buyerId: `b${n}` }]) compare(index, other, f, iso(BASE));
    } finally {
      other.close();
    }
  });
});
