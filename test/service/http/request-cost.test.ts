import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInvalid, expectProblem } from '../../contract/contract.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

// No request costs more than its size: building a 400 is linear in the input, and the answer is
// bounded (the first 100 fields and a count of the rest). No time is asserted (a loaded machine is
// slower); the quadratic version took about 35 s, past the suite's 30 s test timeout.

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

const ONE_MIB = 1024 * 1024;
/** Problem answers stay small whatever the input: 100 fields of at most 200 characters each. */
const MAX_PROBLEM_BYTES = 64 * 1024;

/** A pipeline creation whose body has `count` unknown fields besides valid required ones. */
function bodyWithUnknownFields(count: number): string {
  const body: Record<string, unknown> = { name: 'Valid name', idempotencyKey: randomUUID() };
  for (let index = 0; index < count; index++) body[`u${index.toString(36)}`] = 0;
  return JSON.stringify(body);
}

const pipelineCount = () =>
  (sandbox.db.prepare('SELECT count(*) AS n FROM pipelines').get() as { n: number }).n;

describe('a body of 100,000 unknown fields', () => {
  it('is refused with a bounded 400 at a cost in proportion, and another organisation’s read is not held up', async () => {
    const raw = bodyWithUnknownFields(100_000);
    expect(Buffer.byteLength(raw)).toBeLessThan(ONE_MIB);
    // Warm the paths once, so that what is measured is the request's cost, not a first compile.
    expect(
      (
        await sandbox.call('POST', '/v1/pipelines', {
          key: KEYS.aliceAcme,
          rawBody: bodyWithUnknownFields(1000),
        })
      ).status,
    ).toBe(400);
    expect((await sandbox.call('GET', '/v1/tenders?limit=5', { key: KEYS.daveBeta })).status).toBe(200);
    const before = pipelineCount();

    const [write, read] = await Promise.all([
      sandbox.call('POST', '/v1/pipelines', { key: KEYS.aliceAcme, rawBody: raw }),
      sandbox.call('GET', '/v1/tenders?limit=5', { key: KEYS.daveBeta }),
    ]);

    expectProblem(write, 400, 'invalid_request');
    expect(write.body.errors.length).toBe(100);
    expect(write.body.errors[0]).toEqual({ field: 'u0', message: 'is not a known field' });
    expect(write.body.detail).toContain('and 99,900 more');
    expect(write.text.length).toBeLessThan(MAX_PROBLEM_BYTES);

    expect(read.status).toBe(200);
    expect(read.body.data.length).toBe(5);
    expect(pipelineCount()).toBe(before);
  });
});

describe('every path from input to problem is linear and bounded', () => {
  const key = KEYS.aliceAcme;
  const cases: { name: string; method: string; path: string; rawBody?: string; fields?: number }[] = [
    {
      name: '1 MiB of nested arrays',
      method: 'POST',
      path: '/v1/pipelines',
      rawBody: `${'['.repeat(500_000)}${']'.repeat(500_000)}`,
    },
    {
      name: '1 MiB of nested objects',
      method: 'POST',
      path: '/v1/pipelines',
      rawBody: `${'{"a":'.repeat(170_000)}1${'}'.repeat(170_000)}`,
    },
    {
      name: '50 stages, each with 1,500 unknown fields',
      method: 'POST',
      path: '/v1/pipelines',
      rawBody: JSON.stringify({
        name: 'x',
        idempotencyKey: randomUUID(),
        stages: Array.from({ length: 50 }, () =>
          Object.fromEntries([['name', 'ok'], ...Array.from({ length: 1500 }, (_, i) => [`x${i}`, 0])]),
        ),
      }),
      fields: 100,
    },
    {
      name: '20,000 stages, each wrong',
      method: 'POST',
      path: '/v1/pipelines',
      rawBody: JSON.stringify({
        name: 'x',
        idempotencyKey: randomUUID(),
        stages: Array.from({ length: 20_000 }, () => ({ name: '', expectedDurationDays: 'x', extra: 1 })),
      }),
    },
    {
      name: 'an unknown field named by 500,000 characters',
      method: 'POST',
      path: '/v1/pipelines',
      rawBody: JSON.stringify({ ['k'.repeat(500_000)]: 1 }),
    },
    {
      name: 'a name of 900,000 characters',
      method: 'POST',
      path: '/v1/pipelines',
      rawBody: JSON.stringify({ name: 'n'.repeat(900_000), idempotencyKey: randomUUID() }),
    },
    {
      name: '1,500 unknown query parameters',
      method: 'GET',
      path: `/v1/tenders?${Array.from({ length: 1500 }, (_, i) => `p${i}=1`).join('&')}`,
      fields: 100,
    },
  ];

  for (const example of cases) {
    it(`answers ${example.name} with a bounded 400 at a cost in proportion`, async () => {
      if (example.rawBody !== undefined) expect(Buffer.byteLength(example.rawBody)).toBeLessThan(ONE_MIB);
      const answer = await sandbox.call(example.method, example.path, { key, rawBody: example.rawBody });
      expectProblem(answer, 400, 'invalid_request');
      expect(answer.text.length).toBeLessThan(MAX_PROBLEM_BYTES);
      expect(answer.body.errors.length).toBeLessThanOrEqual(100);
      for (const error of answer.body.errors) expect(error.field.length).toBeLessThanOrEqual(200);
      if (example.fields !== undefined) {
        expect(answer.body.errors.length).toBe(example.fields);
        expect(answer.body.detail).toMatch(/and [\d,]+ more/);
      }
    });
  }

  it('names each field once even when it fails two checks', async () => {
    const answer = await sandbox.call('POST', '/v1/pipelines', {
      key,
      body: { name: 'x', idempotencyKey: randomUUID(), targetSubmissionDate: '2026-02-30' },
    });
    expectInvalid(answer, ['targetSubmissionDate']);
  });

  it('names a digit-only unknown key as a key, not an array index', async () => {
    const answer = await sandbox.call('POST', '/v1/pipelines', {
      key,
      body: { name: 'x', idempotencyKey: randomUUID(), 5: true },
    });
    expectInvalid(answer, ['5']);
  });
});
