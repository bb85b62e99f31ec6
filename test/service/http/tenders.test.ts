import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tender } from '../../../src/contract/schemas.ts';
import { nonEmpty, TENDER_FIELDS } from '../../contract/contract.ts';
import { KEYS, TENDER_A } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
const get = (path: string) => sandbox.call('GET', path, { key: KEYS.aliceAcme });

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

function isNewestFirst(tenders: { publishedAt: string; id: string }[]): boolean {
  return tenders.every((tender, index) => {
    const previous = tenders[index - 1];
    if (!previous) return true;
    return (
      previous.publishedAt > tender.publishedAt ||
      (previous.publishedAt === tender.publishedAt && previous.id < tender.id)
    );
  });
}

describe('GET /v1/tenders', () => {
  it('lists tenders newest first with the list envelope and default limit 20', async () => {
    const answer = await get('/v1/tenders');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(20);
    expect(answer.body.pagination).toEqual({ limit: 20, offset: 0, total: 700, hasMore: true });
    expect(isNewestFirst(answer.body.data)).toBe(true);
    for (const tender of nonEmpty(answer.body.data)) expect(Tender.parse(tender)).toEqual(tender);
  });

  it('keeps the same order whatever the page size', async () => {
    const whole = (await get('/v1/tenders?limit=60')).body.data.map((tender: { id: string }) => tender.id);
    const pages: string[] = [];
    for (let offset = 0; offset < 60; offset += 7) {
      const page = await get(`/v1/tenders?limit=${Math.min(7, 60 - offset)}&offset=${offset}`);
      pages.push(...page.body.data.map((tender: { id: string }) => tender.id));
    }
    expect(pages).toEqual(whole);
  });

  it('matches every word of q as a prefix, in title, description and buyer name', async () => {
    const clean = await get('/v1/tenders?q=clean&limit=100');
    expect(clean.body.pagination.total).toBeGreaterThan(10);
    expect(isNewestFirst(clean.body.data)).toBe(true);
    for (const tender of nonEmpty(clean.body.data)) {
      expect(`${tender.title} ${tender.description} ${tender.buyer?.name}`.toLowerCase()).toMatch(/\bclean/);
    }
    // A second word taken from one of the hits' buyer, cut to a prefix.
    const buyerWord = (clean.body.data[0].buyer.name.match(/[A-Za-z]{5,}/)?.[0] ?? '')
      .slice(0, 5)
      .toLowerCase();
    const both = await get(`/v1/tenders?q=clean%20${buyerWord}&limit=100`);
    expect(both.body.pagination.total).toBeGreaterThan(0);
    expect(both.body.pagination.total).toBeLessThan(clean.body.pagination.total);
    for (const tender of nonEmpty(both.body.data)) {
      const text = `${tender.title} ${tender.description} ${tender.buyer?.name}`.toLowerCase();
      expect(text).toMatch(/\bclean/);
      expect(text).toMatch(new RegExp(`\\b${buyerWord}`));
    }
    expect((await get('/v1/tenders?q=zzzqqqxxx')).body).toEqual({
      data: [],
      pagination: { limit: 20, offset: 0, total: 0, hasMore: false },
    });
  });

  it('filters by status, region, buyer, CPV prefix, value and dates, together with q', async () => {
    const open = await get('/v1/tenders?status=open&limit=100');
    expect(open.body.data.length).toBeGreaterThan(0);
    expect(nonEmpty(open.body.data).every((tender: { status: string }) => tender.status === 'open')).toBe(
      true,
    );

    const region: string = open.body.data[0].region;
    const inRegion = await get(`/v1/tenders?region=${encodeURIComponent(region.toLowerCase())}&limit=100`);
    expect(inRegion.body.data.length).toBeGreaterThan(0);
    expect(nonEmpty(inRegion.body.data).every((tender: { region: string }) => tender.region === region)).toBe(
      true,
    );

    const cpv = await get('/v1/tenders?cpv=909&limit=100');
    expect(cpv.body.data.length).toBeGreaterThan(0);
    for (const tender of nonEmpty(cpv.body.data)) {
      expect(tender.cpvCodes.some((code: { code: string }) => code.code.startsWith('909'))).toBe(true);
    }

    const buyerId = open.body.data[0].buyer.id;
    const byBuyer = await get(`/v1/tenders?buyerId=${buyerId}&limit=100`);
    expect(
      nonEmpty(byBuyer.body.data).every((tender: { buyer: { id: string } }) => tender.buyer.id === buyerId),
    ).toBe(true);

    const valued = await get('/v1/tenders?valueMin=100000&valueMax=500000&limit=100');
    expect(valued.body.data.length).toBeGreaterThan(0);
    for (const tender of nonEmpty(valued.body.data)) {
      expect(tender.value.amount).toBeGreaterThanOrEqual(100000);
      expect(tender.value.amount).toBeLessThanOrEqual(500000);
    }

    const newest = (await get('/v1/tenders?limit=1')).body.data[0];
    const day = newest.publishedAt.slice(0, 10);
    const sameDay = await get(`/v1/tenders?publishedFrom=${day}&publishedTo=${day}&limit=100`);
    expect(sameDay.body.data.map((tender: { id: string }) => tender.id)).toContain(newest.id);
    for (const tender of nonEmpty(sameDay.body.data)) expect(tender.publishedAt.slice(0, 10)).toBe(day);

    const deadlines = await get(
      '/v1/tenders?deadlineFrom=2000-01-01&deadlineTo=2100-01-01&q=clean&status=open&limit=100',
    );
    for (const tender of nonEmpty(deadlines.body.data)) {
      expect(tender.deadline).not.toBeNull();
      expect(tender.status).toBe('open');
    }
  });

  it('shortens descriptions in lists to 500 characters and gives them whole in the detail', async () => {
    const answer = await get('/v1/tenders?limit=100');
    for (const tender of nonEmpty(answer.body.data))
      expect([...(tender.description ?? '')].length).toBeLessThanOrEqual(500);
  });
});

describe('GET /v1/tenders/{id}', () => {
  it('returns the full tender with every field of CONTRACT.md §5, null where missing', async () => {
    const answer = await get(`/v1/tenders/${TENDER_A}`);
    expect(answer.status).toBe(200);
    const tender = answer.body.data;
    expect(Tender.parse(tender)).toEqual(tender);
    expect(Object.keys(tender).sort()).toEqual([...TENDER_FIELDS].sort());
    expect(tender.id).toBe(TENDER_A);
  });

  it('answers 404 not_found for an unknown id', async () => {
    const answer = await get('/v1/tenders/ocds-none-000');
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('not_found');
  });

  it('finds ids that need escaping in a path', async () => {
    const answer = await get(`/v1/tenders/${encodeURIComponent('ocds-canada-bas-PW-$$FK-252-12175')}`);
    expect(answer.status).toBe(404);
    expect(answer.body.detail).toContain('PW-$$FK-252-12175');
  });
});
