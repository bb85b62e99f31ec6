import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortedError,
  ConnectionError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../src/client/errors.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';
import { type FaultServer, startFaultServer } from '../support/fault-server.ts';

const API_KEY = 'pis_secret_never_shown_0123456789abcdefghijklmn';
const tender = {
  id: 't-1',
  title: 'Cleaning',
  description: null,
  status: 'open',
  buyer: null,
  value: null,
  publishedAt: '2026-11-01T00:00:00Z',
  deadline: null,
  awardedAt: null,
  region: null,
  cpvCodes: [],
  source: { name: 'Test', id: 'T-1' },
  url: null,
  frameworkId: null,
  suppliers: [],
};
const ok = { status: 200, body: { data: tender } };
const unavailable = {
  status: 503,
  body: { status: 503, code: 'internal_error', detail: 'down', requestId: 'r-503' },
};

let faults: FaultServer;
let client: ProcurementClient;
beforeAll(async () => {
  faults = await startFaultServer();
});
afterAll(() => faults.stop());
beforeEach(() => {
  client = new ProcurementClient({
    baseUrl: faults.baseUrl,
    apiKey: API_KEY,
    timeoutMs: 300,
    maxRetries: 2,
    retryDelay: { initialMs: 10, maxMs: 40, maxRetryAfterMs: 2000 },
  });
});

describe('retries', () => {
  it('retries a read after 503 and succeeds, counting both attempts', async () => {
    faults.play([unavailable, ok]);
    expect((await client.tenders.get('t-1')).title).toBe('Cleaning');
    expect(client.attempts).toBe(2);
    expect(faults.seen).toHaveLength(2);
  });

  it('gives up after maxRetries with a ServerError carrying the request id', async () => {
    faults.play([unavailable]);
    const error = await client.tenders.get('t-1').catch((caught) => caught);
    expect(error).toBeInstanceOf(ServerError);
    expect(error).toMatchObject({ status: 503, requestId: 'r-503' });
    expect(client.attempts).toBe(3);
    expect(faults.seen).toHaveLength(3);
  });

  it('honours Retry-After on 429', async () => {
    faults.play([
      { status: 429, headers: { 'retry-after': '1' }, body: { code: 'rate_limited', detail: 'slow down' } },
      ok,
    ]);
    const started = Date.now();
    await client.tenders.get('t-1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(client.attempts).toBe(2);
  });

  it('surfaces a Retry-After longer than the cap at once, with retryAfter', async () => {
    faults.play([
      { status: 429, headers: { 'retry-after': '120' }, body: { code: 'rate_limited', detail: 'later' } },
    ]);
    const error = await client.tenders.get('t-1').catch((caught) => caught);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfter).toBe(120);
    expect(client.attempts).toBe(1);
  });

  it('retries after a connection reset', async () => {
    faults.play(['reset', ok]);
    expect((await client.tenders.get('t-1')).id).toBe('t-1');
    expect(client.attempts).toBe(2);
  });

  it('turns silence into a TimeoutError after every allowed attempt', async () => {
    faults.play(['hang']);
    const started = Date.now();
    const error = await client.tenders.get('t-1').catch((caught) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(client.attempts).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('reports a refused connection as a ConnectionError', async () => {
    const closed = new ProcurementClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: API_KEY,
      maxRetries: 1,
      retryDelay: { initialMs: 5 },
    });
    const error = await closed.tenders.get('t-1').catch((caught) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(closed.attempts).toBe(2);
    await closed.close();
  });

  it('never retries what a retry cannot fix (400)', async () => {
    faults.play([
      {
        status: 400,
        body: { code: 'invalid_request', detail: 'bad', errors: [{ field: 'limit', message: 'too big' }] },
      },
    ]);
    const error = await client.tenders.search({ limit: 500 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.fieldErrors).toEqual([{ field: 'limit', message: 'too big' }]);
    expect(client.attempts).toBe(1);
  });

  it('reuses one idempotency key on every attempt of a creation', async () => {
    const comment = {
      id: 'c-1',
      entityType: 'tender',
      entityId: 't-1',
      parentId: null,
      body: 'hi',
      author: { id: 'u', name: 'U' },
      createdAt: '2026-11-21T00:00:00Z',
      updatedAt: '2026-11-21T00:00:00Z',
      deletedAt: null,
    };
    faults.play([unavailable, 'reset', { status: 201, body: { data: comment } }]);
    await client.comments.create({ entityType: 'tender', entityId: 't-1', body: 'hi' });
    const keys = faults.seen.map((request) => JSON.parse(request.body).idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    faults.play([{ status: 201, body: { data: comment } }]);
    await client.comments.create({ entityType: 'tender', entityId: 't-1', body: 'hi' });
    expect(JSON.parse(faults.seen[0]?.body ?? '{}').idempotencyKey).not.toBe(keys[0]);
  });

  it('stops at once when the caller aborts, without another attempt', async () => {
    faults.play(['hang']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await client.tenders
      .get('t-1', { signal: controller.signal, timeoutMs: 5000 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(AbortedError);
    expect(client.attempts).toBe(1);
  });

  it('takes per-call timeout and maxRetries', async () => {
    faults.play([unavailable]);
    await expect(client.tenders.get('t-1', { maxRetries: 0 })).rejects.toBeInstanceOf(ServerError);
    expect(client.attempts).toBe(1);
  });
});

describe('paths', () => {
  it('sends every id as one segment of its own, `/`, `?`, `.` and `..` included', async () => {
    faults.play([ok, ok, ok, ok]);
    for (const id of ['a/b', 'c?d=1', '.', '..']) await client.tenders.get(id);
    expect(faults.seen.map((request) => request.url)).toEqual([
      '/v1/tenders/a%2Fb',
      '/v1/tenders/c%3Fd%3D1',
      '/v1/tenders/%2E',
      '/v1/tenders/%2E%2E',
    ]);
  });
});

describe('responses', () => {
  it('tolerates fields it does not know', async () => {
    faults.play([{ status: 200, body: { data: { ...tender, matchScore: 0.9 }, extra: true } }]);
    const got = await client.tenders.get('t-1');
    expect(got.title).toBe('Cleaning');
  });

  it('reports a missing or wrong required field as a ResponseValidationError naming it', async () => {
    const { title: _title, ...withoutTitle } = tender;
    faults.play([
      {
        status: 200,
        headers: { 'x-request-id': 'r-bad' },
        body: { data: { ...withoutTitle, status: 'maybe' } },
      },
    ]);
    const error = await client.tenders.get('t-1').catch((caught) => caught);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues.map((issue: { path: string }) => issue.path).sort()).toEqual([
      'data.status',
      'data.title',
    ]);
    expect(error.requestId).toBe('r-bad');
    expect(client.attempts).toBe(1);
  });

  it('never shows the key: not in errors, their text, JSON or inspection, nor in the client', async () => {
    faults.play([unavailable]);
    const error = await client.tenders.get('t-1').catch((caught) => caught);
    for (const text of [
      String(error),
      error.message,
      error.stack,
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
    ]) {
      expect(text).not.toContain(API_KEY);
    }
    faults.play(['reset']);
    const connection = await client.tenders.get('t-1', { maxRetries: 0 }).catch((caught) => caught);
    expect(inspect(connection, { depth: 10 })).not.toContain(API_KEY);
    expect(inspect(client, { depth: 10 })).not.toContain(API_KEY);
    expect(JSON.stringify(client)).not.toContain(API_KEY);
    // It is sent, though, as a bearer key.
    expect(faults.seen[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });
});
