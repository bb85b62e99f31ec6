import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, LARGE_FRAMEWORK_ID, TENDER_A, TENDER_B, testFixture } from '../support/fixture.ts';
import { OCDS_DIR } from '../support/ocds-data.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import {
  BOOKMARK_FIELDS,
  BUYER_FIELDS,
  COMMENT_FIELDS,
  CPV_FIELDS,
  DETAIL_FIELDS,
  DIRECTORY_DETAIL_EXTRA_FIELDS,
  expectKeys,
  expectProblem,
  FRAMEWORK_DETAIL_EXTRA_FIELDS,
  FRAMEWORK_FIELDS,
  IDENTIFIER_FIELDS,
  LIST_FIELDS,
  LOT_FIELDS,
  MONEY_FIELDS,
  PAGINATION_FIELDS,
  PIPELINE_DETAIL_FIELDS,
  PIPELINE_LIST_ITEM_FIELDS,
  REF_FIELDS,
  SAVED_SEARCH_FIELDS,
  SAVED_SEARCH_LIST_FIELDS,
  SOURCE_FIELDS,
  STAGE_COUNTS_FIELDS,
  STAGE_FIELDS,
  SUPPLIER_FIELDS,
  TENDER_FIELDS,
} from './contract.ts';

// Real answers over HTTP, held to CONTRACT §5's field lists (written by hand in contract.ts),
// not to the schemas that produced them: exact key sets, so an extra or a missing field fails.

let sandbox: TestSandbox;
/** The same service on real OCDS files from ../shared (identifiers, lots, CPV descriptions). */
let real: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  real = await startTestSandbox({
    // The fixture's bookmarks name demo tenders, which a database of real ones does not have.
    fixture: { ...testFixture(), bookmarks: [] },
    imports: [
      join(OCDS_DIR, 'uk-notices.releases.jsonl.gz'),
      join(OCDS_DIR, 'uk-ccs-frameworks.releases.jsonl.gz'),
    ],
  });
});
afterAll(async () => {
  await sandbox.stop();
  await real.stop();
});

const key = KEYS.aliceAcme;
const getFrom = async (from: TestSandbox, path: string) => {
  const answer = await from.call('GET', path, { key });
  expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).toBe(200);
  return answer.body;
};
const get = (path: string) => getFrom(sandbox, path);

/** Every item of a non-empty list has exactly `fields`. */
function expectEach(items: unknown[], fields: readonly string[], what: string): void {
  expect(items.length, `${what} must not be empty`).toBeGreaterThan(0);
  for (const item of items) expectKeys(item, fields, what);
}

function expectList(
  body: unknown,
  itemFields: readonly string[],
  what: string,
  envelope = LIST_FIELDS,
): void {
  expectKeys(body, envelope, `${what} envelope`);
  const { data, pagination } = body as { data: unknown[]; pagination: unknown };
  expectKeys(pagination, PAGINATION_FIELDS, `${what} pagination`);
  expectEach(data, itemFields, what);
}

// biome-ignore lint/suspicious/noExplicitAny: records as the service sent them, checked field by field.
type Json = any;

/** A tender's nested records too: buyer, value, CPV codes, source and suppliers. */
function expectTender(tender: Json, what: string): void {
  expectKeys(tender, TENDER_FIELDS, what);
  if (tender.buyer !== null) expectKeys(tender.buyer, REF_FIELDS, `${what} buyer`);
  if (tender.value !== null) expectKeys(tender.value, MONEY_FIELDS, `${what} value`);
  expectKeys(tender.source, SOURCE_FIELDS, `${what} source`);
  for (const code of tender.cpvCodes) expectKeys(code, CPV_FIELDS, `${what} cpv code`);
  for (const supplier of tender.suppliers) expectKeys(supplier, REF_FIELDS, `${what} supplier`);
}

const sources = [
  { name: 'demo data', from: () => sandbox, realData: false },
  { name: 'real OCDS files', from: () => real, realData: true },
];

describe.each(sources)('public records, on $name', ({ from, realData }) => {
  const read = (path: string) => getFrom(from(), path);

  it('tender list items and details', async () => {
    const list = await read('/v1/tenders?limit=100');
    expectList(list, TENDER_FIELDS, 'tender list item');
    for (const tender of list.data) expectTender(tender, 'tender list item');
    // The nested shapes above were checked on real values, not only on nulls and empty lists.
    for (const part of ['buyer', 'value'] as const) {
      expect(
        list.data.some((tender: Json) => tender[part] !== null),
        part,
      ).toBe(true);
    }
    expect(list.data.some((tender: Json) => tender.cpvCodes.length > 0)).toBe(true);
    const awarded = await read('/v1/tenders?status=awarded&limit=100');
    expect(awarded.data.some((tender: Json) => tender.suppliers.length > 0)).toBe(true);
    for (const tender of awarded.data) expectTender(tender, 'awarded tender');

    const detail = await read(`/v1/tenders/${encodeURIComponent(list.data[0].id)}`);
    expectKeys(detail, DETAIL_FIELDS, 'tender detail envelope');
    expectTender(detail.data, 'tender detail');
  });

  it('buyers and suppliers, listed and in detail with their notices', async () => {
    for (const [kind, fields] of [
      ['buyers', BUYER_FIELDS],
      ['suppliers', SUPPLIER_FIELDS],
    ] as const) {
      const list = await read(`/v1/${kind}?limit=100`);
      expectList(list, fields, kind);
      if (realData) {
        // The demo data set has no identifiers; the real files do.
        const withIdentifiers = list.data.filter((item: Json) => item.identifiers.length > 0);
        expect(withIdentifiers.length).toBeGreaterThan(0);
        for (const item of withIdentifiers)
          expectEach(item.identifiers, IDENTIFIER_FIELDS, `${kind} identifier`);
      }
      const withNotices = list.data.find((item: Json) => item.noticeCount > 0);
      expect(withNotices).toBeDefined();
      const detail = await read(`/v1/${kind}/${withNotices.id}`);
      expectKeys(detail, DETAIL_FIELDS, `${kind} detail envelope`);
      expectKeys(detail.data, [...fields, ...DIRECTORY_DETAIL_EXTRA_FIELDS], `${kind} detail`);
      expect(detail.data.notices.length).toBeGreaterThan(0);
      for (const notice of detail.data.notices) expectTender(notice, `${kind} notice`);
    }
  });

  it('frameworks, listed and in detail', async () => {
    const list = await read('/v1/frameworks?limit=100');
    expectList(list, FRAMEWORK_FIELDS, 'framework');
    const withLots = list.data.filter((framework: Json) => framework.lots.length > 0);
    expect(withLots.length).toBeGreaterThan(0);
    for (const framework of withLots) expectEach(framework.lots, LOT_FIELDS, 'lot');
    const id = realData ? withLots[0].id : LARGE_FRAMEWORK_ID;
    const detail = await read(`/v1/frameworks/${encodeURIComponent(id)}`);
    expectKeys(detail.data, [...FRAMEWORK_FIELDS, ...FRAMEWORK_DETAIL_EXTRA_FIELDS], 'framework detail');
    if (detail.data.owner !== null) expectKeys(detail.data.owner, REF_FIELDS, 'framework owner');
    if (!realData) {
      // The real files link no call-offs to these frameworks; the demo's large framework has them.
      expectKeys(detail.data.owner, REF_FIELDS, 'framework owner');
      expectEach(detail.data.buyers, REF_FIELDS, 'framework buyer');
      expectEach(detail.data.suppliers, REF_FIELDS, 'framework supplier');
      expect(detail.data.callOffs.length).toBeGreaterThan(0);
      for (const callOff of detail.data.callOffs) expectTender(callOff, 'call-off');
    }
  });
});

describe('the organisation’s and the user’s records', () => {
  it('bookmarks: the creation and the list', async () => {
    const created = await sandbox.call('POST', `/v1/bookmarks/${TENDER_B}`, { key });
    expect(created.status).toBe(201);
    expectKeys(created.body, DETAIL_FIELDS, 'bookmark detail envelope');
    expectKeys(created.body.data, BOOKMARK_FIELDS, 'bookmark');
    expectTender(created.body.data.tender, 'bookmarked tender');
    const list = await get('/v1/bookmarks');
    expectList(list, BOOKMARK_FIELDS, 'bookmark');
  });

  it('saved searches: the list with nextOffset, and the detail', async () => {
    const list = await get('/v1/saved-searches?limit=5');
    expectList(list, SAVED_SEARCH_FIELDS, 'saved search', SAVED_SEARCH_LIST_FIELDS);
    const detail = await get(`/v1/saved-searches/${list.data[0].id}`);
    expectKeys(detail, DETAIL_FIELDS, 'saved search detail envelope');
    expectKeys(detail.data, SAVED_SEARCH_FIELDS, 'saved search');
  });

  it('comments: the creation and the list, deleted ones included', async () => {
    const created = await sandbox.call('POST', '/v1/comments', {
      key,
      body: { entityType: 'tender', entityId: TENDER_B, body: 'Shape check', idempotencyKey: randomUUID() },
    });
    expect(created.status).toBe(201);
    expectKeys(created.body.data, COMMENT_FIELDS, 'comment');
    expectKeys(created.body.data.author, REF_FIELDS, 'comment author');
    expect((await sandbox.call('DELETE', `/v1/comments/${created.body.data.id}`, { key })).status).toBe(204);
    const list = await get(`/v1/comments?entityType=tender&entityId=${TENDER_B}`);
    expectList(list, COMMENT_FIELDS, 'comment');
    for (const comment of list.data) expectKeys(comment.author, REF_FIELDS, 'comment author');
  });

  it('pipelines: detail with stages, list items with stage counts, a stage, the archive answer', async () => {
    const created = await sandbox.call('POST', '/v1/pipelines', {
      key,
      body: { name: 'Shapes', idempotencyKey: randomUUID(), tenderId: TENDER_A, stages: [{ name: 'One' }] },
    });
    expect(created.status).toBe(201);
    expectKeys(created.body, DETAIL_FIELDS, 'pipeline detail envelope');
    expectKeys(created.body.data, PIPELINE_DETAIL_FIELDS, 'pipeline detail');
    expectKeys(created.body.data.owner, REF_FIELDS, 'pipeline owner');
    expectEach(created.body.data.stages, STAGE_FIELDS, 'stage');

    const list = await get('/v1/pipelines');
    expectList(list, PIPELINE_LIST_ITEM_FIELDS, 'pipeline list item');
    for (const item of list.data) expectKeys(item.stageCounts, STAGE_COUNTS_FIELDS, 'stage counts');

    const stage = await sandbox.call(
      'PATCH',
      `/v1/pipelines/${created.body.data.id}/stages/${created.body.data.stages[0].id}`,
      { key, body: { status: 'in_progress' } },
    );
    expect(stage.status).toBe(200);
    expectKeys(stage.body, DETAIL_FIELDS, 'stage detail envelope');
    expectKeys(stage.body.data, STAGE_FIELDS, 'stage');

    const archived = await sandbox.call('POST', `/v1/pipelines/${created.body.data.id}/archive`, {
      key,
      body: { archived: true },
    });
    expect(archived.status).toBe(200);
    expectKeys(archived.body.data, PIPELINE_DETAIL_FIELDS, 'archived pipeline');
  });
});

describe('problems', () => {
  it('have exactly the problem fields, errors when fields are named, requiredScope for a missing scope', async () => {
    expectProblem(await sandbox.call('GET', '/v1/tenders/no-such-tender', { key }), 404, 'not_found');
    const invalid = await sandbox.call('GET', '/v1/tenders?limit=0', { key });
    expectProblem(invalid, 400, 'invalid_request');
    expect(invalid.body.errors).toEqual([{ field: 'limit', message: expect.any(String) }]);
    const scope = await sandbox.call('GET', '/v1/buyers', { key: KEYS.aliceTendersOnly });
    expectProblem(scope, 403, 'missing_scope');
    expect(scope.body.requiredScope).toBe('buyers:read');
    expectProblem(
      await sandbox.call('PATCH', '/v1/pipelines/pl-bob', { key: KEYS.aliceAcme, body: {} }),
      400,
      'empty_update',
    );
  });
});
