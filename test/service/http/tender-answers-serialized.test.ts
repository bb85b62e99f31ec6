import { serializerCompiler } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { TenderDetail, TenderList } from '../../../src/contract/schemas.ts';
import { seededRandom } from '../../../src/service/demo/demo-generator.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

/**
 * The tender routes write their answers with JSON.stringify (tenderAnswerJson), not through their
 * response schemas. Here every answer, as sent over HTTP, is encoded again the way every other
 * route's answer is (the zod serializer with the route's schema): the two must be the same text,
 * byte for byte, so nothing the schema would drop, reorder or reshape reaches a caller.
 */
let sandbox: TestSandbox;
const get = (path: string) => sandbox.call('GET', path, { key: KEYS.aliceAcme });

function schemaSerializer(schema: z.ZodType, url: string): (data: unknown) => string {
  return serializerCompiler({ schema, method: 'GET', url, httpStatus: '200' }) as (data: unknown) => string;
}

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => {
  await sandbox.stop();
});

describe('tender answers written as built, against the schema serializer', () => {
  it('gives the same text for random searches: words, phrases, misspellings, filters, value bounds and pages', async () => {
    const bySchema = schemaSerializer(TenderList, '/v1/tenders');
    const random = seededRandom(27);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const regions = sandbox.db
      .prepare('SELECT DISTINCT region FROM tenders WHERE region IS NOT NULL')
      .pluck()
      .all() as string[];
    const buyers = sandbox.db
      .prepare('SELECT DISTINCT buyer_id FROM tenders LIMIT 5')
      .pluck()
      .all() as string[];
    const words = ['cleaning', 'services', 'clean lond', '"cleaning services"', 'clenaing', 'zzzzqqq', ''];
    // By the parameters each sets: a search takes at most one of each kind.
    const filterKinds = [
      [() => ''],
      [() => `status=${pick(['open', 'closed', 'awarded', 'cancelled', 'planned'])}`],
      [() => `region=${encodeURIComponent(pick(regions))}`],
      [() => `buyerId=${pick(buyers)}`],
      [
        () => `valueMin=${Math.floor(random() * 500_000)}`,
        () => `valueMin=1000000000&currency=${pick(['GBP', 'EUR', 'CAD'])}`,
        () => `valueMax=${Math.floor(random() * 200_000)}&currency=EUR`,
      ],
      [() => `cpv=${pick(['7', '72', '90', '4'])}`],
      [() => 'deadlineFrom=2026-01-01&deadlineTo=2026-12-31'],
      [() => 'publishedFrom=2025-06-01'],
    ];
    const twoFilters = () => {
      const first = Math.floor(random() * filterKinds.length);
      const second = (first + 1 + Math.floor(random() * (filterKinds.length - 1))) % filterKinds.length;
      return [pick(filterKinds[first] ?? [])(), pick(filterKinds[second] ?? [])()];
    };
    let withItems = 0;
    let withSuggestions = 0;
    let withValueRule = 0;
    for (let round = 0; round < 150; round++) {
      const q = pick(words);
      const query = [
        q ? `q=${encodeURIComponent(q)}` : '',
        ...twoFilters(),
        `limit=${pick([1, 5, 20, 100])}`,
        `offset=${pick([0, 0, 3, 50])}`,
      ]
        .filter(Boolean)
        .join('&');
      const answer = await get(`/v1/tenders?${query}`);
      expect(answer.status, query).toBe(200);
      expect(answer.text, query).toBe(bySchema(JSON.parse(answer.text)));
      if (answer.body.data.length > 0) withItems++;
      if (answer.body.suggestions) withSuggestions++;
      if (answer.body.valueRule) withValueRule++;
    }
    // The comparison covers lists of tenders and both optional parts.
    expect(withItems).toBeGreaterThan(40);
    expect(withSuggestions).toBeGreaterThan(3);
    expect(withValueRule).toBeGreaterThan(10);
  });

  it('gives the same text for tender reads, by id and by printed reference', async () => {
    const bySchema = schemaSerializer(TenderDetail, '/v1/tenders/:id');
    const rows = sandbox.db
      .prepare('SELECT id, source_id FROM tenders WHERE sort_key % 7 = 0 LIMIT 60')
      .all() as { id: string; source_id: string }[];
    expect(rows.length).toBe(60);
    for (const { id, source_id: reference } of rows) {
      for (const path of [
        `/v1/tenders/${encodeURIComponent(id)}`,
        `/v1/tenders/${encodeURIComponent(reference)}`,
      ]) {
        const answer = await get(path);
        expect(answer.status, path).toBe(200);
        expect(answer.body.data.id, path).toBe(id);
        expect(answer.text, path).toBe(bySchema(JSON.parse(answer.text)));
      }
    }
  });
});
