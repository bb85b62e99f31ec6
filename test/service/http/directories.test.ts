import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Buyer, Framework, Supplier } from '../../../src/contract/schemas.ts';
import { nonEmpty } from '../../contract/contract.ts';
import { KEYS, LARGE_FRAMEWORK_ID } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
const get = (path: string) => sandbox.call('GET', path, { key: KEYS.aliceAcme });
/** Moves the service's clock after the demo data is made, so that frameworks change status. */
let clockShiftMs = 0;
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

beforeAll(async () => {
  sandbox = await startTestSandbox({ clock: () => new Date(Date.now() + clockShiftMs) });
});
afterAll(() => sandbox.stop());

describe('buyers', () => {
  it('lists buyers by name with noticeCount, filtered by words and region', async () => {
    const all = await get('/v1/buyers?limit=100');
    expect(all.status).toBe(200);
    for (const buyer of nonEmpty(all.body.data)) expect(Buyer.parse(buyer)).toEqual(buyer);
    const names = all.body.data.map((buyer: { name: string }) => buyer.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    const council = await get('/v1/buyers?q=counc&limit=100');
    expect(council.body.data.length).toBeGreaterThan(0);
    for (const buyer of nonEmpty(council.body.data)) expect(buyer.name).toMatch(/\bCounc/i);
    const london = await get('/v1/buyers?region=London&limit=100');
    for (const buyer of nonEmpty(london.body.data)) expect(buyer.region).toBe('London');
  });

  it('caps a busy buyer’s notices at 100, newest first, and says so', async () => {
    const busiest = (await get('/v1/buyers?limit=100')).body.data.sort(
      (a: { noticeCount: number }, b: { noticeCount: number }) => b.noticeCount - a.noticeCount,
    )[0];
    expect(busiest.noticeCount).toBeGreaterThan(100);
    const detail = (await get(`/v1/buyers/${busiest.id}`)).body.data;
    expect(detail.tenderPreviewLimit).toBe(100);
    expect(detail.notices).toHaveLength(100);
    expect(detail.noticeCount).toBe(busiest.noticeCount);
    const dates = detail.notices.map((notice: { publishedAt: string }) => notice.publishedAt);
    expect(dates).toEqual([...dates].sort().reverse());
    for (const notice of nonEmpty(detail.notices)) expect(notice.buyer.id).toBe(busiest.id);
  });

  it('answers 404 for an unknown buyer and 400 naming id for a malformed one', async () => {
    expect((await get('/v1/buyers/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const malformed = await get('/v1/buyers/not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([expect.objectContaining({ field: 'id' })]);
  });
});

describe('suppliers', () => {
  it('lists and details suppliers with their awarded notices', async () => {
    const list = await get('/v1/suppliers?limit=100');
    for (const supplier of nonEmpty(list.body.data)) expect(Supplier.parse(supplier)).toEqual(supplier);
    const withNotices = list.body.data.find((supplier: { noticeCount: number }) => supplier.noticeCount > 0);
    const detail = (await get(`/v1/suppliers/${withNotices.id}`)).body.data;
    expect(detail.tenderPreviewLimit).toBe(100);
    expect(detail.notices).toHaveLength(Math.min(100, withNotices.noticeCount));
    for (const notice of nonEmpty(detail.notices)) {
      expect(notice.suppliers.map((supplier: { id: string }) => supplier.id)).toContain(withNotices.id);
    }
  });

  it('caps a busy supplier’s notices at 100 too', async () => {
    const busiest = (await get('/v1/suppliers?limit=100')).body.data
      .concat((await get('/v1/suppliers?limit=100&offset=100')).body.data)
      .sort((a: { noticeCount: number }, b: { noticeCount: number }) => b.noticeCount - a.noticeCount)[0];
    expect(busiest.noticeCount).toBeGreaterThan(100);
    const detail = (await get(`/v1/suppliers/${busiest.id}`)).body.data;
    expect(detail.notices).toHaveLength(100);
    expect(detail.tenderPreviewLimit).toBe(100);
  });
});

describe('frameworks', () => {
  it('lists frameworks and filters them by status, type and words', async () => {
    const list = await get('/v1/frameworks?limit=100');
    expect(list.body.data.length).toBeGreaterThan(0);
    for (const framework of nonEmpty(list.body.data)) expect(Framework.parse(framework)).toEqual(framework);
    // The demo's frameworks are all live today: seen from six years on they are expired, and
    // from three years back upcoming. Each filter gives exactly the frameworks of its status.
    const shifts = { live: 0, expired: 6 * YEAR_MS, upcoming: -3 * YEAR_MS };
    try {
      for (const [status, shift] of Object.entries(shifts)) {
        clockShiftMs = shift;
        const all = (await get('/v1/frameworks?limit=100')).body.data as { id: string; status: string }[];
        expect(all.length).toBe(list.body.pagination.total);
        const expected = all
          .filter((framework) => framework.status === status)
          .map((framework) => framework.id);
        expect(expected.length, status).toBeGreaterThan(0);
        const filtered = await get(`/v1/frameworks?status=${status}&limit=100`);
        expect(filtered.body.data.map((framework: { id: string }) => framework.id).sort()).toEqual(
          expected.sort(),
        );
      }
    } finally {
      clockShiftMs = 0;
    }
    const frameworksOnly = await get('/v1/frameworks?type=framework');
    for (const framework of nonEmpty(frameworksOnly.body.data)) expect(framework.type).toBe('framework');
    const words = await get('/v1/frameworks?q=framew');
    expect(words.body.pagination.total).toBe(list.body.pagination.total);
  });

  it('caps buyers, suppliers and call-offs at 100 and gives the wider counts', async () => {
    const answer = await get(`/v1/frameworks/${LARGE_FRAMEWORK_ID}`);
    expect(answer.status).toBe(200);
    const framework = answer.body.data;
    expect(framework.relatedRecordLimit).toBe(100);
    expect(framework.supplierCount).toBeGreaterThan(100);
    expect(framework.callOffCount).toBeGreaterThan(100);
    expect(framework.suppliers).toHaveLength(100);
    expect(framework.callOffs).toHaveLength(100);
    expect(framework.buyers.length).toBeLessThanOrEqual(100);
    for (const callOff of nonEmpty(framework.callOffs)) expect(callOff.frameworkId).toBe(framework.id);
  });

  it('answers 404 for an unknown framework', async () => {
    expect((await get('/v1/frameworks/no-such-framework')).status).toBe(404);
  });
});
