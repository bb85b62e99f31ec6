import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
const get = (path: string, key: string = KEYS.aliceAcme) => sandbox.call('GET', path, { key });

beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

describe('saved searches', () => {
  it('lists the organisation’s first 100 only, oldest first, with nextOffset', async () => {
    const first = await get('/v1/saved-searches?limit=40');
    expect(first.status).toBe(200);
    expect(first.body.data.map((search: { id: string }) => search.id)).toEqual(
      Array.from({ length: 40 }, (_, index) => `ss-acme-${String(index + 1).padStart(3, '0')}`),
    );
    expect(first.body.pagination).toEqual({ limit: 40, offset: 0, total: 100, hasMore: true });
    expect(first.body.nextOffset).toBe(40);

    const last = await get('/v1/saved-searches?limit=40&offset=80');
    expect(last.body.data).toHaveLength(20);
    expect(last.body.data.at(-1).id).toBe('ss-acme-100');
    expect(last.body.nextOffset).toBeNull();
    expect(last.body.pagination.hasMore).toBe(false);
  });

  it('caps the offset at 99 and says so', async () => {
    const answer = await get('/v1/saved-searches?limit=10&offset=150');
    expect(answer.body.pagination).toEqual({ limit: 10, offset: 99, total: 100, hasMore: false });
    expect(answer.body.data.map((search: { id: string }) => search.id)).toEqual(['ss-acme-100']);
    expect(answer.body.nextOffset).toBeNull();
  });

  it('reads one definition with a query that runs as a tender search', async () => {
    const answer = await get('/v1/saved-searches/ss-acme-001');
    expect(answer.body.data).toMatchObject({
      id: 'ss-acme-001',
      name: 'Acme search 1',
      query: { q: 'cleaning', region: 'North West', limit: 5 },
    });
    const query = new URLSearchParams(answer.body.data.query).toString();
    const run = await get(`/v1/tenders?${query}`);
    expect(run.status).toBe(200);
    expect(run.body.pagination.limit).toBe(5);
  });

  it('shows another organisation’s saved search to nobody (404), and each its own list', async () => {
    expect((await get('/v1/saved-searches/ss-beta-1')).status).toBe(404);
    expect((await get('/v1/saved-searches/ss-acme-001', KEYS.daveBeta)).status).toBe(404);
    const beta = await get('/v1/saved-searches', KEYS.daveBeta);
    expect(beta.body.data.map((search: { id: string }) => search.id)).toEqual(['ss-beta-1']);
    expect(beta.body.nextOffset).toBeNull();
  });
});
