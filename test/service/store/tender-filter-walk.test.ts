/*
 * A search's plan (planFilters): the bucket of each value and deadline bound, found by binary search
 * only for a filter the search gives, is the one bucketOf finds for every bound, given or absent.
 * That the walk then answers as SQL does is held in tender-filter-index.test.ts and
 * tender-filter-columns.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoData } from '../../../src/service/demo/demo-generator.ts';
import { openDatabase, type SqliteDatabase } from '../../../src/service/store/database.ts';
import { bucketOf, readColumns } from '../../../src/service/store/tender-filter-columns.ts';
import { planFilters, type TenderFilters } from '../../../src/service/store/tender-filter-walk.ts';

const TODAY = new Date('2026-06-01T00:00:00Z');
const NOW = '2026-06-01T00:00:00Z';
let db: SqliteDatabase;

beforeAll(() => {
  db = openDatabase(':memory:');
  generateDemoData(db, { tenders: 800, today: TODAY });
});
afterAll(() => db.close());

describe('planFilters', () => {
  it('gives each value and deadline bound the bucket bucketOf finds for it, whether the filter is given or not', () => {
    const columns = readColumns(db, 64);
    const deadlineEdges = columns.deadlineBuckets.edges;
    expect(deadlineEdges.length).toBeGreaterThan(10);
    const filters: TenderFilters[] = [
      {},
      { status: 'open' },
      { region: 'Wales' },
      { valueMin: 50_000 },
      { valueMax: 200_000, valueCurrency: 'EUR' },
      { valueMin: 20_000, valueMax: 20_000 },
      { deadlineFrom: '2026-06-10T00:00:00Z' },
      { deadlineTo: '2026-05-01T00:00:00Z' },
      { deadlineFrom: '2026-05-01T00:00:00Z', deadlineTo: '2026-07-01T00:00:00Z', valueMin: 10_000 },
      { deadlineFrom: '1990-01-01T00:00:00Z', deadlineTo: '2090-01-01T00:00:00Z' },
    ];
    let insideBuckets = 0;
    for (const given of filters) {
      const plan = planFilters(columns, given, NOW);
      if (plan === null) throw new Error(`no plan for ${JSON.stringify(given)}`);
      const valueEdges = plan.valueBuckets.edges;
      expect(
        [plan.valueLow, plan.valueHigh, plan.deadlineLow, plan.deadlineHigh],
        JSON.stringify(given),
      ).toEqual([
        bucketOf(valueEdges, plan.valueMin),
        bucketOf(valueEdges, plan.valueMax),
        bucketOf(deadlineEdges, plan.deadlineFrom),
        bucketOf(deadlineEdges, plan.deadlineTo),
      ]);
      // Bounds inside the buckets (not below all or in the last), so a search was made and compared.
      for (const [bucket, edges] of [
        [plan.valueLow, valueEdges],
        [plan.deadlineLow, deadlineEdges],
        [plan.deadlineHigh, deadlineEdges],
      ] as const)
        if (bucket > -1 && bucket < edges.length - 1) insideBuckets++;
    }
    expect(insideBuckets).toBeGreaterThan(5);
  });
});
