import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ForbiddenError,
  IdempotencyConflictError,
  MissingScopeError,
  NotFoundError,
  PlanError,
  RateLimitedError,
  SubmissionNotAllowedError,
  ValidationError,
} from '../../src/client/errors.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import { KEYS, LARGE_FRAMEWORK_ID, TENDER_A, TENDER_B } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';

let sandbox: TestSandbox;
const clients: ProcurementClient[] = [];
const clientFor = (apiKey: string, maxRetries = 2) => {
  const client = new ProcurementClient({
    baseUrl: sandbox.baseUrl,
    apiKey,
    maxRetries,
    retryDelay: { initialMs: 5 },
  });
  clients.push(client);
  return client;
};
let alice: ProcurementClient;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  alice = clientFor(KEYS.aliceAcme);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await sandbox.stop();
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('reading public records', () => {
  it('searches, reads and walks every page of tenders', async () => {
    const page = await alice.tenders.search({ q: 'clean', limit: 7 });
    expect(page.data).toHaveLength(7);
    const all = await collect(alice.tenders.all({ q: 'clean', limit: 7 }));
    expect(all).toHaveLength(page.pagination.total);
    expect(new Set(all.map((tender) => tender.id)).size).toBe(all.length);
    expect((await alice.tenders.get(TENDER_A)).id).toBe(TENDER_A);
  });

  it('lists, reads and walks buyers, suppliers and frameworks', async () => {
    const buyers = await alice.buyers.list({ limit: 5 });
    expect((await alice.buyers.get(buyers.data[0]?.id as string)).tenderPreviewLimit).toBe(100);
    expect(await collect(alice.buyers.all({ limit: 50 }))).toHaveLength(buyers.pagination.total);
    const suppliers = await alice.suppliers.list({ limit: 5 });
    expect((await alice.suppliers.get(suppliers.data[0]?.id as string)).notices).toBeInstanceOf(Array);
    expect(await collect(alice.suppliers.all({ limit: 100 }))).toHaveLength(suppliers.pagination.total);
    const framework = await alice.frameworks.get(LARGE_FRAMEWORK_ID);
    expect(framework.callOffs).toHaveLength(100);
    expect(await collect(alice.frameworks.all())).toHaveLength(
      (await alice.frameworks.list()).pagination.total,
    );
  });
});

describe('the organisation’s and the user’s data', () => {
  it('adds, lists and removes bookmarks', async () => {
    expect((await alice.bookmarks.add(TENDER_B)).tenderId).toBe(TENDER_B);
    expect((await alice.bookmarks.add(TENDER_B)).tenderId).toBe(TENDER_B);
    expect((await alice.bookmarks.list()).data.map((bookmark) => bookmark.tenderId)).toEqual([TENDER_B]);
    expect((await collect(alice.bookmarks.all())).map((bookmark) => bookmark.tenderId)).toEqual([TENDER_B]);
    await alice.bookmarks.remove(TENDER_B);
    await alice.bookmarks.remove(TENDER_B);
    expect((await alice.bookmarks.list()).data).toEqual([]);
  });

  it('reads saved searches and stops at the service’s cap of 100 by following nextOffset', async () => {
    expect((await alice.savedSearches.get('ss-acme-001')).query).toMatchObject({ q: 'cleaning' });
    const all = await collect(alice.savedSearches.all({ limit: 30 }));
    expect(all).toHaveLength(100);
    expect(all.at(-1)?.id).toBe('ss-acme-100');
  });

  it('creates, lists, walks and deletes comments', async () => {
    const comment = await alice.comments.create({
      entityType: 'tender',
      entityId: TENDER_B,
      body: 'From the client',
    });
    const reply = await alice.comments.create({
      entityType: 'tender',
      entityId: TENDER_B,
      body: 'Reply',
      parentId: comment.id,
    });
    expect(reply.parentId).toBe(comment.id);
    const thread = await collect(alice.comments.all({ entityType: 'tender', entityId: TENDER_B, limit: 1 }));
    expect(thread.map((entry) => entry.body)).toEqual(['From the client', 'Reply']);
    await alice.comments.delete(comment.id);
    await alice.comments.delete(comment.id);
    const after = await alice.comments.list({ entityType: 'tender', entityId: TENDER_B });
    expect(after.data[0]?.body).toBeNull();
  });

  it('creates, changes, archives and walks pipelines', async () => {
    const pipeline = await alice.pipelines.create({
      name: 'Client pipeline',
      tenderId: TENDER_A,
      stages: [{ name: 'Qualify' }],
    });
    expect(pipeline.status).toBe('draft');
    const updated = await alice.pipelines.update(pipeline.id, { status: 'bidding', summary: 'Going' });
    expect(updated).toMatchObject({ status: 'bidding', summary: 'Going' });
    const stage = await alice.pipelines.updateStage(pipeline.id, pipeline.stages[0]?.id as string, {
      status: 'completed',
    });
    expect(stage.status).toBe('completed');
    expect((await alice.pipelines.archive(pipeline.id, true)).archived).toBe(true);
    expect((await alice.pipelines.get(pipeline.id)).archived).toBe(true);
    const archived = await collect(alice.pipelines.all({ archived: 'archived', limit: 1 }));
    expect(archived.map((item) => item.id)).toEqual([pipeline.id]);
    expect((await alice.pipelines.archive(pipeline.id, false)).status).toBe('bidding');
  });

  it('replays a creation with a caller’s idempotency key and refuses the key for other content', async () => {
    const idempotencyKey = crypto.randomUUID();
    const first = await alice.pipelines.create({ name: 'Once' }, { idempotencyKey });
    const again = await alice.pipelines.create({ name: 'Once' }, { idempotencyKey });
    expect(again.id).toBe(first.id);
    await expect(alice.pipelines.create({ name: 'Twice' }, { idempotencyKey })).rejects.toBeInstanceOf(
      IdempotencyConflictError,
    );
  });
});

describe('typed errors from the real service', () => {
  it('gives each condition of CONTRACT.md §2 its class', async () => {
    await expect(alice.tenders.get('nope')).rejects.toBeInstanceOf(NotFoundError);
    for (const [key, reason] of [
      ['pis_unknown_0123456789abcdefghijklmnopqrstuv', 'invalid_api_key'],
      [KEYS.aliceExpired, 'expired_api_key'],
      [KEYS.erinFormerMember, 'disabled_api_key'],
    ] as const) {
      const error = await clientFor(key)
        .tenders.search()
        .catch((caught) => caught);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(error.reason).toBe(reason);
      expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    }
    const scope = await clientFor(KEYS.aliceTendersOnly)
      .buyers.list()
      .catch((caught) => caught);
    expect(scope).toBeInstanceOf(MissingScopeError);
    expect(scope.requiredScope).toBe('buyers:read');
    await expect(clientFor(KEYS.basicPlan).tenders.search()).rejects.toBeInstanceOf(PlanError);
    await expect(
      clientFor(KEYS.victorViewerAcme).comments.create({
        entityType: 'tender',
        entityId: TENDER_A,
        body: 'x',
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    const invalid = await alice.tenders.search({ limit: 500 }).catch((caught) => caught);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid.fieldErrors.map((error: { field: string }) => error.field)).toEqual(['limit']);
    const empty = await alice.pipelines.update('pl-bob', {}).catch((caught) => caught);
    expect(empty).toBeInstanceOf(ValidationError);
    expect(empty.code).toBe('empty_update');
    await expect(alice.pipelines.update('pl-bob', { status: 'submitted' })).rejects.toBeInstanceOf(
      SubmissionNotAllowedError,
    );
  });

  it('surfaces a rate limit once retries are spent, with retryAfter', async () => {
    const slow = clientFor(KEYS.slowLane, 0);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, () => slow.tenders.search({ limit: 1 })),
    );
    const limited = results
      .filter((result) => result.status === 'rejected')
      .map((result) => (result as PromiseRejectedResult).reason);
    expect(limited.length).toBeGreaterThan(0);
    for (const error of limited) {
      expect(error).toBeInstanceOf(RateLimitedError);
      expect(error.retryAfter).toBeGreaterThanOrEqual(1);
    }
    expect(slow.attempts).toBe(8);
  });
});
