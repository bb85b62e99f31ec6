import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

function expectProblem(answer: Awaited<ReturnType<TestSandbox['call']>>, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body).toMatchObject({ status, code, requestId: answer.headers['x-request-id'] });
  expect(answer.body.type).toEqual(expect.any(String));
  expect(answer.body.title).toEqual(expect.any(String));
  expect(answer.body.detail).toEqual(expect.any(String));
}

describe('bearer keys', () => {
  it('answers 401 missing_api_key without a header, with another scheme, or with an empty Bearer', async () => {
    const headerSets: Record<string, string>[] = [
      {},
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer   ' },
    ];
    for (const headers of headerSets) {
      const answer = await sandbox.call('GET', '/v1/tenders', { headers });
      expectProblem(answer, 401, 'missing_api_key');
    }
  });

  it('answers 401 invalid_api_key for an unknown key, in pis_ form or not', async () => {
    for (const key of ['pis_unknownunknownunknownunknownunknown12', 'not-a-key-at-all']) {
      expectProblem(await sandbox.call('GET', '/v1/tenders', { key }), 401, 'invalid_api_key');
    }
  });

  it('answers 401 expired_api_key past the expiry', async () => {
    expectProblem(
      await sandbox.call('GET', '/v1/tenders', { key: KEYS.aliceExpired }),
      401,
      'expired_api_key',
    );
  });

  it('answers 401 disabled_api_key when the creator is no longer a member', async () => {
    expectProblem(
      await sandbox.call('GET', '/v1/tenders', { key: KEYS.erinFormerMember }),
      401,
      'disabled_api_key',
    );
  });

  it('answers 403 plan_without_api_access for an organisation on essentials', async () => {
    expectProblem(
      await sandbox.call('GET', '/v1/tenders', { key: KEYS.basicPlan }),
      403,
      'plan_without_api_access',
    );
  });

  it('answers 403 missing_scope naming the scope, for every endpoint the key lacks', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/v1/buyers', 'buyers:read'],
      ['GET', '/v1/suppliers', 'suppliers:read'],
      ['GET', '/v1/frameworks', 'frameworks:read'],
      ['GET', '/v1/bookmarks', 'bookmarks:read'],
      ['POST', '/v1/bookmarks/x', 'bookmarks:write'],
      ['DELETE', '/v1/bookmarks/x', 'bookmarks:write'],
      ['GET', '/v1/saved-searches', 'saved-searches:read'],
      ['GET', '/v1/comments?entityType=tender&entityId=x', 'comments:read'],
      ['DELETE', '/v1/comments/x', 'comments:write'],
      ['GET', '/v1/pipelines', 'pipeline:read'],
      ['PATCH', '/v1/pipelines/x', 'pipeline:write'],
      ['POST', '/v1/pipelines/x/archive', 'pipeline:write'],
    ];
    for (const [method, path, scope] of cases) {
      const answer = await sandbox.call(method, path, { key: KEYS.aliceTendersOnly, body: {} });
      expectProblem(answer, 403, 'missing_scope');
      expect(answer.body.requiredScope, `${method} ${path}`).toBe(scope);
    }
    expect((await sandbox.call('GET', '/v1/tenders', { key: KEYS.aliceTendersOnly })).status).toBe(200);
  });

  it('checks the scope before the input, so a key without it learns nothing from validation', async () => {
    const answer = await sandbox.call('POST', '/v1/comments', {
      key: KEYS.aliceTendersOnly,
      body: { bogus: true },
    });
    expectProblem(answer, 403, 'missing_scope');
    expect(answer.body.requiredScope).toBe('comments:write');
  });
});

describe('headers on every answer', () => {
  it('carries X-Request-Id, unique per request, also on errors and unknown routes', async () => {
    const answers = await Promise.all([
      sandbox.call('GET', '/v1/tenders', { key: KEYS.aliceAcme }),
      sandbox.call('GET', '/v1/tenders'),
      sandbox.call('GET', '/v1/nothing-here', { key: KEYS.aliceAcme }),
    ]);
    const ids = answers.map((answer) => answer.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(3);
    expectProblem(answers[2] as never, 404, 'not_found');
  });

  it('carries RateLimit-* on answers to a valid key, errors included', async () => {
    const ok = await sandbox.call('GET', '/v1/tenders', { key: KEYS.aliceAcme });
    const notFound = await sandbox.call('GET', '/v1/tenders/no-such-tender', { key: KEYS.aliceAcme });
    const forbidden = await sandbox.call('GET', '/v1/buyers', { key: KEYS.aliceTendersOnly });
    for (const answer of [ok, notFound, forbidden]) {
      expect(answer.headers['ratelimit-limit']).toMatch(/^\d+$/);
      expect(answer.headers['ratelimit-remaining']).toMatch(/^\d+$/);
      expect(Number(answer.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }
    expect(ok.headers['ratelimit-limit']).toBe('1000');
    expect(notFound.status).toBe(404);
  });
});

describe('rate limit', () => {
  it('answers 429 rate_limited with Retry-After once the key is over its rate, and counts every attempt', async () => {
    // The slow lane allows 3 requests a second; 8 at once must overflow whatever the window's phase.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => sandbox.call('GET', '/v1/tenders?limit=1', { key: KEYS.slowLane })),
    );
    const limited = answers.filter((answer) => answer.status === 429);
    const allowed = answers.filter((answer) => answer.status === 200);
    expect(limited.length).toBeGreaterThanOrEqual(2);
    expect(allowed.length).toBeGreaterThanOrEqual(1);
    expect(allowed.length).toBeLessThanOrEqual(6);
    for (const answer of limited) {
      expectProblem(answer, 429, 'rate_limited');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answer.headers['ratelimit-remaining']).toBe('0');
    }
    // Another key is not slowed by this one.
    expect((await sandbox.call('GET', '/v1/tenders?limit=1', { key: KEYS.aliceAcme })).status).toBe(200);
  });

  it('lets the key through again after Retry-After', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await sandbox.call('GET', '/v1/tenders?limit=1', { key: KEYS.slowLane })).status).toBe(200);
  });
});

describe('every accepted attempt counts (spec §8 rule 4)', () => {
  it('counts a retried creation that returns the existing record as one more request', async () => {
    // Start just after a window opens, so that all three requests fall in the same second.
    while (Date.now() % 1000 > 50) await new Promise((resolve) => setTimeout(resolve, 5));
    const body = {
      entityType: 'tender',
      entityId: 'ocds-tbdemo-0000201',
      body: 'counted',
      idempotencyKey: crypto.randomUUID(),
    };
    const first = await sandbox.call('POST', '/v1/comments', { key: KEYS.bobAdminAcme, body });
    const retry = await sandbox.call('POST', '/v1/comments', { key: KEYS.bobAdminAcme, body });
    const read = await sandbox.call('GET', '/v1/tenders?limit=1', { key: KEYS.bobAdminAcme });
    expect([first.status, retry.status, read.status]).toEqual([201, 200, 200]);
    const remaining = [first, retry, read].map((answer) => Number(answer.headers['ratelimit-remaining']));
    expect(remaining[1]).toBe((remaining[0] as number) - 1);
    expect(remaining[2]).toBe((remaining[0] as number) - 2);
  });
});

describe('membership is checked on every request', () => {
  it('acts as the creator with their current role: a viewer key with every scope still cannot post', async () => {
    const answer = await sandbox.call('POST', '/v1/comments', {
      key: KEYS.victorViewerAcme,
      body: {
        entityType: 'tender',
        entityId: 'ocds-tbdemo-0000201',
        body: 'hello',
        idempotencyKey: crypto.randomUUID(),
      },
    });
    expectProblem(answer, 403, 'forbidden');
  });
});

describe('rate limit and the service clock', () => {
  it('measures rates in real time, so a service whose clock is set (or frozen) still opens new windows', async () => {
    const frozen = await startTestSandbox({ clock: () => new Date('2026-01-15T09:00:00Z') });
    try {
      const burst = await Promise.all(
        Array.from({ length: 8 }, () => frozen.call('GET', '/v1/tenders?limit=1', { key: KEYS.slowLane })),
      );
      expect(burst.filter((answer) => answer.status === 429).length).toBeGreaterThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const later = await frozen.call('GET', '/v1/tenders?limit=1', { key: KEYS.slowLane });
      expect(later.status).toBe(200);
    } finally {
      await frozen.stop();
    }
  });
});
