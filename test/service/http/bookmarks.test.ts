import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, TENDER_A, TENDER_B } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

const ids = (answer: { body: { data: { tenderId: string }[] } }) =>
  answer.body.data.map((bookmark) => bookmark.tenderId);

describe('bookmarks', () => {
  it('adds with 201 the first time and 200 after, removes with 204 either way', async () => {
    const first = await sandbox.call('POST', `/v1/bookmarks/${TENDER_B}`, { key: KEYS.aliceAcme });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ tenderId: TENDER_B, tender: { id: TENDER_B } });
    expect(first.body.data.createdAt).toMatch(/Z$/);
    const again = await sandbox.call('POST', `/v1/bookmarks/${TENDER_B}`, { key: KEYS.aliceAcme });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(ids(await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.aliceAcme }))).toEqual([TENDER_B]);

    const removed = await sandbox.call('DELETE', `/v1/bookmarks/${TENDER_B}`, { key: KEYS.aliceAcme });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect((await sandbox.call('DELETE', `/v1/bookmarks/${TENDER_B}`, { key: KEYS.aliceAcme })).status).toBe(
      204,
    );
    expect(
      (await sandbox.call('DELETE', '/v1/bookmarks/no-such-tender', { key: KEYS.aliceAcme })).status,
    ).toBe(204);
    expect(ids(await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.aliceAcme }))).toEqual([]);
  });

  it('answers 404 when bookmarking an unknown tender, and stores nothing', async () => {
    const answer = await sandbox.call('POST', '/v1/bookmarks/no-such-tender', { key: KEYS.aliceAcme });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('not_found');
    expect(ids(await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.aliceAcme }))).toEqual([]);
  });

  it('belongs to the user: Alice’s bookmark made with her Acme key shows with her Beta key', async () => {
    await sandbox.call('POST', `/v1/bookmarks/${TENDER_A}`, { key: KEYS.aliceAcme });
    await sandbox.call('POST', `/v1/bookmarks/${TENDER_B}`, { key: KEYS.aliceBeta });
    const fromBeta = await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.aliceBeta });
    expect(ids(fromBeta)).toEqual([TENDER_B, TENDER_A]);
    expect(fromBeta.body.pagination).toEqual({ limit: 20, offset: 0, total: 2, hasMore: false });
    expect(ids(await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.aliceAcme }))).toEqual([
      TENDER_B,
      TENDER_A,
    ]);
    // Dave, also in Beta, sees only his own.
    expect(ids(await sandbox.call('GET', '/v1/bookmarks', { key: KEYS.daveBeta }))).toEqual([TENDER_A]);
    const paged = await sandbox.call('GET', '/v1/bookmarks?limit=1&offset=1', { key: KEYS.aliceBeta });
    expect(ids(paged)).toEqual([TENDER_A]);
    expect(paged.body.pagination.hasMore).toBe(false);
  });
});
