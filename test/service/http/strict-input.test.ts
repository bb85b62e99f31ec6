import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInvalid, expectProblem, ROUTE_TABLE } from '../../contract/contract.ts';
import { KEYS, TENDER_A } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

const key = KEYS.aliceAcme;

/** Every list that takes limit and offset, with the parameters it needs besides them. */
const PAGED_LISTS = [
  '/v1/tenders?',
  '/v1/buyers?',
  '/v1/suppliers?',
  '/v1/frameworks?',
  '/v1/bookmarks?',
  '/v1/saved-searches?',
  `/v1/comments?entityType=tender&entityId=${TENDER_A}&`,
  '/v1/pipelines?',
];

/** Values Number() would take but CONTRACT §1 does not: integers are decimal digits only. */
const NOT_DECIMAL_DIGITS = [
  '0x10',
  '1e1',
  '+5',
  '%205',
  '5%20',
  '',
  '%20',
  '1.0',
  '-0',
  '5abc',
  '%D9%A3',
  'Infinity',
];

describe('integers in query strings are decimal digits only (CONTRACT §1)', () => {
  it('answers 400 naming limit or offset for hex, exponent, sign, spaces, empty and blank values, on every list', async () => {
    expect(PAGED_LISTS.length).toBe(8);
    for (const list of PAGED_LISTS) {
      for (const value of NOT_DECIMAL_DIGITS) {
        expectInvalid(await sandbox.call('GET', `${list}limit=${value}`, { key }), ['limit']);
        expectInvalid(await sandbox.call('GET', `${list}offset=${value}`, { key }), ['offset']);
      }
    }
  });

  it('answers 400 for a repeated limit, and for one past the safe integers', async () => {
    expectInvalid(await sandbox.call('GET', '/v1/tenders?limit=1&limit=2', { key }), ['limit']);
    expectInvalid(await sandbox.call('GET', '/v1/tenders?offset=99999999999999999999', { key }), ['offset']);
  });

  it('accepts decimal digits, leading zeros included', async () => {
    const answer = await sandbox.call('GET', '/v1/tenders?limit=007&offset=00', { key });
    expect(answer.status).toBe(200);
    expect(answer.body.pagination).toMatchObject({ limit: 7, offset: 0 });
    expect(answer.body.data.length).toBe(7);
  });
});

describe('amounts: valueMin and valueMax', () => {
  it('accept decimal digits with an optional fraction (amounts, not counts)', async () => {
    const answer = await sandbox.call('GET', '/v1/tenders?valueMin=100.5&valueMax=100000000&limit=100', {
      key,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.length).toBeGreaterThan(0);
    for (const tender of answer.body.data) expect(tender.value.amount).toBeGreaterThanOrEqual(100.5);
  });

  it('answer 400 naming the parameter for hex, exponent, sign, spaces, empty, blank and non-numbers', async () => {
    const values = ['0x10', '1e5', '+5', '-1', '%205', '', '%20', '1,000', 'Infinity', 'NaN', '.5', '5.'];
    for (const name of ['valueMin', 'valueMax']) {
      for (const value of values) {
        expectInvalid(await sandbox.call('GET', `/v1/tenders?${name}=${value}`, { key }), [name]);
      }
    }
  });
});

describe('an over-long path id', () => {
  const longId = 'x'.repeat(10_000);
  const rowsWithId = ROUTE_TABLE.filter((row) => row.route.includes('{id}'));

  it('is a problem+json 400 naming id, with its request id, on every route with an id', async () => {
    expect(rowsWithId.length).toBeGreaterThanOrEqual(10);
    for (const row of rowsWithId) {
      const path = row.path.replace(/^(\/v1\/[a-z-]+\/)[^/]+/, `$1${longId}`);
      expect(path).toContain(longId);
      const answer = await sandbox.call(row.method, path, {
        key,
        body: row.method === 'POST' || row.method === 'PATCH' ? { archived: true, name: 'x' } : undefined,
      });
      expectInvalid(answer, ['id']);
      expect(answer.text.length).toBeLessThan(4096);
    }
  });

  it('is answered only after the key checks: 401 without a key or with an unknown one', async () => {
    expect(rowsWithId.length).toBeGreaterThan(0);
    for (const row of rowsWithId) {
      const path = row.path.replace(/^(\/v1\/[a-z-]+\/)[^/]+/, `$1${longId}`);
      expectProblem(await sandbox.call(row.method, path), 401, 'missing_api_key');
      expectProblem(
        await sandbox.call(row.method, path, { key: 'pis_unknown_0123456789abcdefghijklmnopqrstuv' }),
        401,
        'invalid_api_key',
      );
    }
  });

  it('on an unknown path is a 404 after the key check, its detail cut short', async () => {
    expectProblem(await sandbox.call('GET', `/v1/nothing/${longId}`), 401, 'missing_api_key');
    const answer = await sandbox.call('GET', `/v1/nothing/${longId}`, { key });
    expectProblem(answer, 404, 'not_found');
    expect(answer.body.detail.length).toBeLessThan(300);
  });
});
