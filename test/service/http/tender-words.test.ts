import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import {
  PublicRecordsWriter,
  type TenderReleaseInput,
} from '../../../src/service/store/public-records-writer.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
let db: SqliteDatabase;
const get = (path: string) => sandbox.call('GET', path, { key: KEYS.aliceAcme });

/** Tenders written with the forms of a few words, beside the demo data. */
const TITLES = [
  'New library for Ashford',
  'Libraries: book stock supply',
  'Mobile libraries service',
  'Cleaned and sealed floors',
  'School meals for Cardiff',
  'School meal vouchers',
  'Meals on wheels at the school',
];

function release(title: string, index: number): TenderReleaseInput {
  return {
    id: `ocds-test-words-${index}`,
    releaseDate: `2026-04-${String(10 + index).padStart(2, '0')}T09:00:00Z`,
    title,
    description: null,
    status: index % 2 === 0 ? 'awarded' : 'cancelled',
    buyer: null,
    value: { amount: 40_000 + index * 20_000, currency: 'GBP' },
    deadline: '2026-06-01T12:00:00Z',
    region: index % 2 === 0 ? 'Wales' : 'Scotland',
    cpvCodes: [{ code: '92511000', description: 'Library services' }],
    sourceName: 'test',
    sourceId: `words-${index}`,
    url: null,
    frameworkId: null,
    awards: [],
    framework: null,
  };
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
  db = openDatabase(sandbox.dbPath);
  const writer = new PublicRecordsWriter(db);
  db.transaction(() => {
    TITLES.forEach((title, index) => {
      writer.writeRelease(release(title, index));
    });
    writer.finish();
  })();
}, 120_000);
afterAll(async () => {
  db.close();
  await sandbox.stop();
});

/** The plain count: the stemmed words (each a prefix of a stem) and one filter, in SQL written apart. */
function plainCount(words: string, filter: string, params: Record<string, unknown>): number {
  const match = words
    .split(' ')
    .map((word) => `"${word}"*`)
    .join(' ');
  return db
    .prepare(
      `SELECT count(*) FROM tenders t WHERE t.sort_key IN
         (SELECT rowid FROM tender_words WHERE tender_words MATCH @match) AND ${filter}`,
    )
    .pluck()
    .get({ ...params, match }) as number;
}

function exactCount(words: string): number {
  const match = words
    .split(' ')
    .map((word) => `"${word}"*`)
    .join(' ');
  return db
    .prepare('SELECT count(*) FROM tender_exact_words WHERE tender_exact_words MATCH ?')
    .pluck()
    .get(match) as number;
}

async function searchTotal(query: string): Promise<{ total: number; ids: string[]; titles: string[] }> {
  const answer = await get(`/v1/tenders?${query}&limit=100`);
  expect(answer.status, query).toBe(200);
  const data = answer.body.data as { id: string; title: string; publishedAt: string }[];
  // CONTRACT §5: newest publication first.
  for (let index = 1; index < data.length; index++)
    expect(
      (data[index - 1] as { publishedAt: string }).publishedAt >=
        (data[index] as { publishedAt: string }).publishedAt,
    ).toBe(true);
  return {
    total: answer.body.pagination.total,
    ids: data.map((tender) => tender.id),
    titles: data.map((tender) => tender.title),
  };
}

describe('words as people write them (Porter stems)', () => {
  it('finds the forms of a word: "library" and "libraries" alike, "clean" and "cleaned"', async () => {
    const singular = await searchTotal('q=library');
    const plural = await searchTotal('q=libraries');
    expect(singular.total).toBe(plural.total);
    expect([...singular.ids].sort()).toEqual([...plural.ids].sort());
    for (const title of [
      'New library for Ashford',
      'Libraries: book stock supply',
      'Mobile libraries service',
    ])
      expect(plural.titles).toContain(title);
    expect((await searchTotal('q=cleaning')).titles).toContain('Cleaned and sealed floors');
    // Before stems, "libraries" as a prefix of the words as written found only the plural.
    expect(exactCount('libraries')).toBeLessThan(plural.total);
  });

  it('gives totals equal to a plain count of the stemmed query, with every filter class', async () => {
    const buyerId = db
      .prepare(
        'SELECT buyer_id FROM tenders WHERE buyer_id IS NOT NULL GROUP BY buyer_id ORDER BY count(*) DESC LIMIT 1',
      )
      .pluck()
      .get() as string;
    const currencies = db
      .prepare('SELECT DISTINCT coalesce(value_currency, ?) FROM tenders')
      .pluck()
      .all('GBP');
    // Every amount is in pounds here, so a pound bound compares amounts as they are.
    expect(currencies).toEqual(['GBP']);
    const filters: [string, string, Record<string, unknown>][] = [
      ['status=awarded', "t.status = 'awarded'", {}],
      ['status=cancelled', "t.status = 'cancelled'", {}],
      ['region=wales', "t.region = 'Wales' COLLATE NOCASE", {}],
      [`buyerId=${buyerId}`, 't.buyer_id = @buyerId', { buyerId }],
      ['cpv=9', "EXISTS (SELECT 1 FROM tender_cpv c WHERE c.tender_id = t.id AND c.code LIKE '9%')", {}],
      ['valueMin=60000', 't.value_amount >= 60000', {}],
      ['valueMax=90000', 't.value_amount <= 90000', {}],
      ['publishedFrom=2026-01-01', "t.published_at >= '2026-01-01T00:00:00Z'", {}],
      ['publishedTo=2025-12-31', "t.published_at < '2026-01-01T00:00:00Z'", {}],
      ['deadlineFrom=2026-05-01', "t.deadline >= '2026-05-01T00:00:00Z'", {}],
      ['deadlineTo=2026-06-30', "t.deadline < '2026-07-01T00:00:00Z'", {}],
    ];
    let stemmedMore = 0;
    let nonEmpty = 0;
    for (const words of ['libraries', 'repairs', 'buildings', 'works', 'cleaned', 'services'])
      for (const [query, condition, params] of filters) {
        const plain = plainCount(words, condition, params);
        const api = await searchTotal(`q=${encodeURIComponent(words)}&${query}`);
        expect(api.total, `${words} ${query}`).toBe(plain);
        // Twice: a second answer comes from what the fast paths kept.
        expect((await searchTotal(`q=${encodeURIComponent(words)}&${query}`)).total).toBe(plain);
        if (plain > 0) nonEmpty++;
      }
    for (const words of ['libraries', 'repairs', 'buildings', 'cleaned'])
      if ((await searchTotal(`q=${words}`)).total > exactCount(words)) stemmedMore++;
    expect(nonEmpty).toBeGreaterThan(30);
    expect(stemmedMore).toBeGreaterThan(2);
  });

  it('matches a quoted phrase exactly: those words as written, in that order', async () => {
    const phrase = await searchTotal(`q=${encodeURIComponent('"school meals"')}`);
    expect(phrase.titles).toEqual(['School meals for Cardiff']);
    expect(phrase.total).toBe(1);
    // Curly quotes too, and a phrase beside a stemmed word.
    const curly = await searchTotal(`q=${encodeURIComponent('“school meal” vouchers')}`);
    expect(curly.titles).toEqual(['School meal vouchers']);
    // Unquoted, the same words find every form, in any order.
    const words = await searchTotal('q=school%20meals');
    for (const title of ['School meals for Cardiff', 'School meal vouchers', 'Meals on wheels at the school'])
      expect(words.titles).toContain(title);
    // A phrase with a filter: through the filter index, the same.
    expect((await searchTotal(`q=${encodeURIComponent('"school meals"')}&region=wales`)).total).toBe(
      phrase.ids.filter((id) => Number(id.split('-').pop()) % 2 === 0).length,
    );
    expect((await searchTotal(`q=${encodeURIComponent('"meals school"')}`)).total).toBe(0);
  });
});
