import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TenderList } from '../../../src/contract/schemas.ts';
import { openDatabase } from '../../../src/service/store/database.ts';
import {
  PublicRecordsWriter,
  type TenderReleaseInput,
} from '../../../src/service/store/public-records-writer.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
const get = (path: string) => sandbox.call('GET', path, { key: KEYS.aliceAcme });

/** Snow removal contracts in four currencies with rates, and one (JPY) without. */
const VALUED: [string, number, string][] = [
  ['cad-1048640', 1_048_640, 'CAD'],
  ['cad-2000000', 2_000_000, 'CAD'],
  ['cad-600000', 600_000, 'CAD'],
  ['eur-1100000', 1_100_000, 'EUR'],
  ['eur-1300000', 1_300_000, 'EUR'],
  ['eur-90000', 90_000, 'EUR'],
  ['gbp-1000000', 1_000_000, 'GBP'],
  ['gbp-999999', 999_999.5, 'GBP'],
  ['usd-1500000', 1_500_000, 'USD'],
  ['jpy-200000000', 200_000_000, 'JPY'],
];

function release(suffix: string, amount: number, currency: string, index: number): TenderReleaseInput {
  return {
    id: `ocds-test-snow-${suffix}`,
    releaseDate: `2026-05-${String(10 + index).padStart(2, '0')}T09:00:00Z`,
    title: `Snow removal, depot ${index}`,
    description: 'Winter snow removal and gritting.',
    status: 'open',
    buyer: null,
    value: { amount, currency },
    deadline: '2026-12-01T12:00:00Z',
    region: index % 2 === 0 ? 'Wales' : 'Scotland',
    cpvCodes: [{ code: '90620000', description: 'Snow-clearing services' }],
    sourceName: 'test',
    sourceId: suffix,
    url: null,
    frameworkId: null,
    awards: [],
    framework: null,
  };
}

interface StoredValue {
  id: string;
  amount: number | null;
  currency: string | null;
  region: string | null;
}

let stored: StoredValue[] = [];
let snowIds = new Set<string>();

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // Written by another connection to the service's own file, as an import would.
  const db = openDatabase(sandbox.dbPath);
  try {
    const writer = new PublicRecordsWriter(db);
    db.transaction(() => {
      VALUED.forEach(([suffix, amount, currency], index) => {
        writer.writeRelease(release(suffix, amount, currency, index));
      });
      writer.finish();
    })();
    stored = db
      .prepare('SELECT id, value_amount AS amount, value_currency AS currency, region FROM tenders')
      .all() as StoredValue[];
    snowIds = new Set(
      db
        .prepare(
          `SELECT t.id FROM tenders t WHERE t.sort_key IN
             (SELECT rowid FROM tender_words WHERE tender_words MATCH '"snow"* "removal"*')`,
        )
        .pluck()
        .all() as string[],
    );
  } finally {
    db.close();
  }
}, 120_000);
afterAll(() => sandbox.stop());

/** A stored amount in `currency` by the rule the answer states: times `rates[to] / rates[from]`. */
function converted(value: StoredValue, currency: string, rates: Record<string, number>): number | null {
  if (value.amount === null) return null;
  const from = value.currency ?? 'GBP';
  if (from === currency) return value.amount;
  const fromRate = rates[from];
  const toRate = rates[currency];
  if (fromRate === undefined || toRate === undefined) return null;
  return value.amount * (toRate / fromRate);
}

async function everyId(path: string): Promise<{ ids: string[]; total: number; body: TenderListAnswer }> {
  const ids: string[] = [];
  let body: TenderListAnswer | undefined;
  for (let offset = 0; ; offset += 100) {
    const answer = await get(`${path}&limit=100&offset=${offset}`);
    expect(answer.status, path).toBe(200);
    body = TenderList.parse(answer.body);
    ids.push(...body.data.map((tender) => tender.id));
    if (!body.pagination.hasMore) break;
  }
  return { ids, total: (body as TenderListAnswer).pagination.total, body: body as TenderListAnswer };
}
type TenderListAnswer = z.infer<typeof TenderList>;

describe('value filters on tenders in GBP, EUR, CAD, USD and JPY', () => {
  it('lists under a bound only tenders whose amount, converted by the stated rule, passes; totals equal a plain count', async () => {
    let nonEmpty = 0;
    for (const words of ['snow removal', '']) {
      for (const region of [undefined, 'Wales']) {
        for (const currency of [undefined, 'GBP', 'EUR', 'CAD']) {
          for (const [valueMin, valueMax] of [
            [1_000_000, undefined],
            [500_000, 1_100_000],
            [undefined, 100_000],
            [1_048_640, undefined],
          ] as const) {
            const params = new URLSearchParams();
            if (words) params.set('q', words);
            if (region) params.set('region', region);
            if (currency) params.set('currency', currency);
            if (valueMin !== undefined) params.set('valueMin', String(valueMin));
            if (valueMax !== undefined) params.set('valueMax', String(valueMax));
            const path = `/v1/tenders?${params}`;
            const { ids, total, body } = await everyId(path);
            const rule = body.valueRule;
            expect(rule?.currency, path).toBe(currency ?? 'GBP');
            expect(rule?.ratesDate, path).toMatch(/^\d{4}-\d{2}-\d{2}$/);
            expect(rule?.summary, path).toContain(rule?.ratesDate);
            const rates = rule?.rates ?? {};
            const expected = stored
              .filter((value) => !words || snowIds.has(value.id))
              .filter((value) => !region || value.region?.toLowerCase() === region.toLowerCase())
              .filter((value) => {
                const amount = converted(value, currency ?? 'GBP', rates);
                if (amount === null) return false;
                return (
                  (valueMin === undefined || amount >= valueMin) &&
                  (valueMax === undefined || amount <= valueMax)
                );
              })
              .map((value) => value.id);
            expect(total, path).toBe(expected.length);
            expect([...ids].sort(), path).toEqual([...expected].sort());
            if (total > 0) nonEmpty++;
          }
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });

  it('keeps the Canadian contract of CA$1,048,640 out of "over £1,000,000" and lists it over CA$1,000,000', async () => {
    const pounds = await everyId('/v1/tenders?q=snow%20removal&valueMin=1000000');
    expect(pounds.ids).not.toContain('ocds-test-snow-cad-1048640');
    expect(pounds.ids).not.toContain('ocds-test-snow-jpy-200000000');
    expect(pounds.ids).toContain('ocds-test-snow-gbp-1000000');
    expect(pounds.ids).toContain('ocds-test-snow-eur-1300000');
    expect(pounds.ids).not.toContain('ocds-test-snow-gbp-999999');
    expect(pounds.body.valueRule?.summary).toMatch(/^Amounts in GBP; tenders in EUR, USD, CAD converted/);
    const dollars = await everyId('/v1/tenders?q=snow%20removal&valueMin=1000000&currency=CAD');
    expect(dollars.ids).toContain('ocds-test-snow-cad-1048640');
    expect(dollars.body.valueRule?.currency).toBe('CAD');
  });

  it('says no rule when no value bound was given, and refuses a currency without rates with a sentence', async () => {
    const plain = await get('/v1/tenders?q=snow');
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('valueRule');
    const refused = await get('/v1/tenders?valueMin=10&currency=JPY');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('must be one of GBP, EUR, USD, CAD');
  });

  it('documents the rule and the currency parameter in the OpenAPI document', async () => {
    const answer = await sandbox.call('GET', '/v1/openapi.json');
    expect(answer.status).toBe(200);
    const document = JSON.stringify(answer.body);
    expect(document).toContain('ECB euro reference rates');
    expect(document).toContain('The currency of valueMin and valueMax; GBP when absent.');
    expect(answer.body.components.schemas.ValueRule).toBeDefined();
  });
});
