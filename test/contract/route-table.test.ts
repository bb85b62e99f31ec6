import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testFixture } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { CONTRACT_SCOPES, type ContractScope, expectProblem, ROUTE_TABLE } from './contract.ts';

// Access checks fail closed, tested from CONTRACT §3's table (written by hand in contract.ts),
// not from the code's own list of routes and scopes.

const keyName = (kind: string, scope: ContractScope) =>
  `pis_test_${kind}_${scope.replace(/[^a-z]/g, '_')}_0123456789abcdefghijklmnop`;
const withoutKey = (scope: ContractScope) => keyName('without', scope);
const onlyKey = (scope: ContractScope) => keyName('only', scope);

let sandbox: TestSandbox;
beforeAll(async () => {
  const fixture = testFixture();
  const apiKeys: object[] = [...fixture.apiKeys];
  for (const scope of CONTRACT_SCOPES) {
    apiKeys.push(
      {
        key: withoutKey(scope),
        organisationId: 'org-acme',
        userId: 'usr-alice',
        scopes: CONTRACT_SCOPES.filter((other) => other !== scope),
        rateLimitPerSecond: 1000,
      },
      {
        key: onlyKey(scope),
        organisationId: 'org-acme',
        userId: 'usr-alice',
        scopes: [scope],
        rateLimitPerSecond: 1000,
      },
    );
  }
  sandbox = await startTestSandbox({ fixture: { ...fixture, apiKeys } });
});
afterAll(() => sandbox.stop());

const protectedRows = ROUTE_TABLE.filter((row) => row.scope !== null);
const label = (row: { method: string; route: string }) => `${row.method} ${row.route}`;
/** `/v1/tenders/{id}` in the contract is `/v1/tenders/:id` in Fastify. */
const asServed = (route: string) => route.replace(/\{([A-Za-z]+)\}/g, ':$1');

describe('CONTRACT §3, route by route', () => {
  it('answers 401 missing_api_key without a key, and 401 invalid_api_key with an unknown one', async () => {
    expect(protectedRows.length).toBeGreaterThanOrEqual(22);
    for (const row of protectedRows) {
      const body = row.method === 'POST' || row.method === 'PATCH' ? {} : undefined;
      expectProblem(await sandbox.call(row.method, row.path, { body }), 401, 'missing_api_key');
      const unknown = await sandbox.call(row.method, row.path, {
        key: 'pis_unknown_0123456789abcdefghijklmnopqrstuv',
        body,
      });
      expectProblem(unknown, 401, 'invalid_api_key');
    }
  });

  it('answers a HEAD of every GET route 401 without a key, as the GET does', async () => {
    const gets = protectedRows.filter((row) => row.method === 'GET');
    expect(gets.length).toBeGreaterThan(0);
    for (const row of gets) {
      const answer = await sandbox.call('HEAD', row.path);
      expect(answer.status, label(row)).toBe(401);
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('answers 403 missing_scope naming the scope, to a key with every scope but that one', async () => {
    for (const row of protectedRows) {
      const scope = row.scope as ContractScope;
      const answer = await sandbox.call(row.method, row.path, {
        key: withoutKey(scope),
        // An invalid body: the scope is checked before the input, so the caller learns nothing.
        body: row.method === 'POST' || row.method === 'PATCH' ? { bogus: true } : undefined,
      });
      expectProblem(answer, 403, 'missing_scope');
      expect(answer.body.requiredScope, label(row)).toBe(scope);
    }
  });

  it('lets a key with only that scope past the key checks (neither 401 nor 403)', async () => {
    for (const row of protectedRows) {
      const answer = await sandbox.call(row.method, row.path, {
        key: onlyKey(row.scope as ContractScope),
        body: row.method === 'POST' || row.method === 'PATCH' ? {} : undefined,
      });
      expect(
        [401, 403],
        `${label(row)} answered ${answer.status} ${answer.text.slice(0, 200)}`,
      ).not.toContain(answer.status);
    }
  });

  it('serves the OpenAPI document without a key', async () => {
    const publicRows = ROUTE_TABLE.filter((row) => row.scope === null);
    expect(publicRows.length).toBeGreaterThan(0);
    for (const row of publicRows) expect((await sandbox.call(row.method, row.path)).status).toBe(200);
  });

  it('covers every route the server serves under /v1, and serves every route of the table', () => {
    const served = sandbox.app.servedRoutes.filter((route) => route.url.startsWith('/v1/'));
    const servedOthers = served.filter((route) => route.method !== 'HEAD');
    expect(servedOthers.length).toBeGreaterThan(0);
    const table = ROUTE_TABLE.map((row) => `${row.method} ${asServed(row.route)}`);
    expect(servedOthers.map((route) => `${route.method} ${route.url}`).sort()).toEqual([...table].sort());
    // HEAD is served for GET routes only (Fastify adds it), and answered like the GET above.
    const heads = served.filter((route) => route.method === 'HEAD');
    expect(heads.length).toBeGreaterThan(0);
    for (const head of heads) expect(table).toContain(`GET ${head.url}`);
  });
});
