import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import { type FaultServer, startFaultServer } from '../support/fault-server.ts';

// Every operation of the API is safe to repeat (spec §8 rule 5 for updates, archive and
// bookmarks; deletes of what is gone succeed), so writes are retried like reads, with the same
// request each time.

const pipeline = {
  id: 'p-1',
  name: 'Cleaning bid',
  summary: null,
  status: 'draft',
  tenderId: null,
  targetSubmissionDate: null,
  archived: false,
  owner: { id: 'u', name: 'U' },
  permission: 'edit',
  stages: [],
  createdAt: '2026-11-21T00:00:00Z',
  updatedAt: '2026-11-21T00:00:00Z',
};
const unavailable = { status: 503, body: { code: 'internal_error', detail: 'down' } };

let faults: FaultServer;
let client: ProcurementClient;
beforeAll(async () => {
  faults = await startFaultServer();
});
afterAll(() => faults.stop());
beforeEach(() => {
  client = new ProcurementClient({
    baseUrl: faults.baseUrl,
    apiKey: 'pis_retried_writes_0123456789abcdefghijklmnop',
    maxRetries: 2,
    retryDelay: { initialMs: 5, maxMs: 10 },
  });
});

describe('writes are retried with the same request', () => {
  it('an update, after a 503 and a reset', async () => {
    faults.play([unavailable, 'reset', { status: 200, body: { data: pipeline } }]);
    const updated = await client.pipelines.update('p-1', { status: 'bidding' });
    expect(updated.id).toBe('p-1');
    expect(faults.seen.map((request) => `${request.method} ${request.url} ${request.body}`)).toEqual(
      Array(3).fill('PATCH /v1/pipelines/p-1 {"status":"bidding"}'),
    );
  });

  it('an archive, a bookmark removal and a comment deletion', async () => {
    faults.play([unavailable, { status: 200, body: { data: { ...pipeline, archived: true } } }]);
    expect((await client.pipelines.archive('p-1', true)).archived).toBe(true);
    faults.play([unavailable, { status: 204 }]);
    await client.bookmarks.remove('t/1');
    faults.play([unavailable, { status: 204 }]);
    await client.comments.delete('c-1');
    expect(client.attempts).toBe(6);
    expect(faults.seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'DELETE /v1/comments/c-1',
      'DELETE /v1/comments/c-1',
    ]);
  });

  it('not at all when the caller asks for no retries', async () => {
    faults.play([unavailable]);
    await expect(client.pipelines.update('p-1', { name: 'x' }, { maxRetries: 0 })).rejects.toThrow('503');
    expect(faults.seen).toHaveLength(1);
  });
});
