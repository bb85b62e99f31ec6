import { randomUUID } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../support/fixture.ts';
import { type ApiAnswer, startTestSandbox, type TestSandbox } from '../support/sandbox.ts';

/**
 * The 7 rules an independent fuzzer found the service applying without its OpenAPI document
 * saying so (issue 21, item 8). For each, values just inside and just outside the rule are
 * judged twice: by the schema the served document gives (with a JSON Schema validator, formats
 * asserted, lengths in code points as JSON Schema counts them) and by the service on loopback.
 * Every value must get the same verdict from both, and the verdict the rule says.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is walked by its OpenAPI shape.
type OpenApi = any;

let sandbox: TestSandbox;
let document: OpenApi;
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: under NodeNext its default import is the module, the plugin its `default`.
const { default: addFormats } = formatsModule;
addFormats(ajv);

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // Read as any client reads it: served, without a key.
  const served = await sandbox.call('GET', '/v1/openapi.json', { key: null });
  expect(served.status).toBe(200);
  document = served.body;
});
afterAll(() => sandbox.stop());

const KEY = KEYS.aliceAcme;

function operation(path: string, method: string): OpenApi {
  const found = document.paths[path]?.[method];
  expect(found, `${method.toUpperCase()} ${path} in the document`).toBeDefined();
  return found;
}

const compiled = new Map<object, ValidateFunction>();
function validatorOf(schema: object): ValidateFunction {
  const known = compiled.get(schema);
  if (known) return known;
  const validate = ajv.compile(schema);
  compiled.set(schema, validate);
  return validate;
}

/** The document's verdict on a JSON body sent to `method path`. */
function documentTakesBody(path: string, method: string, body: unknown): boolean {
  const schema = operation(path, method).requestBody.content['application/json'].schema;
  return validatorOf(schema)(body);
}

/** The document's verdict on one query parameter's raw text. */
function documentTakesQuery(path: string, name: string, value: string): boolean {
  const parameter = operation(path, 'get').parameters.find(
    (candidate: { in: string; name: string }) => candidate.in === 'query' && candidate.name === name,
  );
  expect(parameter, `query parameter ${name} of ${path}`).toBeDefined();
  return validatorOf(parameter.schema)(value);
}

type Verdict = 'inside' | 'outside';

/** The service's verdict: 2xx inside; outside, 400 naming `field`. */
function serviceVerdict(answer: ApiAnswer, field: string): Verdict | string {
  if (answer.status >= 200 && answer.status < 300) return 'inside';
  const named = (answer.body?.errors ?? []).map((error: { field: string }) => error.field);
  if (answer.status === 400 && named.includes(field)) return 'outside';
  return `${answer.status} ${answer.text.slice(0, 300)}`;
}

/** Asserts the rule's verdict, the document's and the service's are one and the same. */
function expectAgreement(
  label: string,
  expected: Verdict,
  documentTakes: boolean,
  service: Verdict | string,
) {
  expect({ label, document: documentTakes ? 'inside' : 'outside', service }).toEqual({
    label,
    document: expected,
    service: expected,
  });
}

async function newPipeline(stageName = 'Qualify'): Promise<{ id: string; stageId: string }> {
  const created = await sandbox.call('POST', '/v1/pipelines', {
    key: KEY,
    body: { name: 'Rules', idempotencyKey: randomUUID(), stages: [{ name: stageName }] },
  });
  expect(created.status).toBe(201);
  return { id: created.body.data.id, stageId: created.body.data.stages[0].id };
}

/** Each value of each filter of GET /v1/tenders, judged by the document and by the service alike. */
async function expectTenderFilterRule(
  names: readonly string[],
  values: readonly { value: string; expected: Verdict }[],
): Promise<void> {
  for (const name of names) {
    for (const { value, expected } of values) {
      const answer = await sandbox.call('GET', `/v1/tenders?${name}=${encodeURIComponent(value)}&limit=1`, {
        key: KEY,
      });
      expectAgreement(
        `${name}=${value}`,
        expected,
        documentTakesQuery('/v1/tenders', name, value),
        serviceVerdict(answer, name),
      );
    }
  }
}

describe('the OpenAPI document states what the service enforces, checked at the edges', () => {
  it('1. a PATCH body needs at least one field (minProperties: 1), answered as empty_update', async () => {
    const { id, stageId } = await newPipeline();
    const cases: { path: string; url: string; body: object; expected: Verdict }[] = [
      { path: '/v1/pipelines/{id}', url: `/v1/pipelines/${id}`, body: {}, expected: 'outside' },
      { path: '/v1/pipelines/{id}', url: `/v1/pipelines/${id}`, body: { summary: null }, expected: 'inside' },
      {
        path: '/v1/pipelines/{id}/stages/{stageId}',
        url: `/v1/pipelines/${id}/stages/${stageId}`,
        body: {},
        expected: 'outside',
      },
      {
        path: '/v1/pipelines/{id}/stages/{stageId}',
        url: `/v1/pipelines/${id}/stages/${stageId}`,
        body: { notes: null },
        expected: 'inside',
      },
    ];
    for (const { path, url, body, expected } of cases) {
      const answer = await sandbox.call('PATCH', url, { key: KEY, body });
      expectAgreement(
        `PATCH ${path} ${JSON.stringify(body)}`,
        expected,
        documentTakesBody(path, 'patch', body),
        serviceVerdict(answer, 'body'),
      );
      if (expected === 'outside') expect(answer.body.code).toBe('empty_update');
    }
    expect(
      operation('/v1/pipelines/{id}', 'patch').requestBody.content['application/json'].schema.minProperties,
    ).toBe(1);
  });

  it('2. a comment body is 1 to 5,000 characters, counted in code points', async () => {
    const cases: { body: string; expected: Verdict }[] = [
      { body: '', expected: 'outside' },
      { body: 'x', expected: 'inside' },
      { body: 'x'.repeat(5000), expected: 'inside' },
      { body: 'x'.repeat(5001), expected: 'outside' },
      // Two UTF-16 units each: 5,000 of them are 10,000 units and still 5,000 characters.
      { body: '😀'.repeat(5000), expected: 'inside' },
      { body: '😀'.repeat(5001), expected: 'outside' },
    ];
    for (const { body: text, expected } of cases) {
      const body = {
        entityType: 'tender',
        entityId: 'ocds-tbdemo-0000201',
        body: text,
        idempotencyKey: randomUUID(),
      };
      const answer = await sandbox.call('POST', '/v1/comments', { key: KEY, body });
      expectAgreement(
        `comment of ${[...text].length} × ${text.slice(0, 1) || 'nothing'}`,
        expected,
        documentTakesBody('/v1/comments', 'post', body),
        serviceVerdict(answer, 'body'),
      );
    }
  });

  it('3. bid and stage names must not be blank, when created and when renamed', async () => {
    const names: { name: string; expected: Verdict }[] = [
      { name: '', expected: 'outside' },
      { name: ' ', expected: 'outside' },
      { name: ' \t\n\u00a0\u2003', expected: 'outside' },
      { name: 'x', expected: 'inside' },
      { name: '  x  ', expected: 'inside' },
      { name: 'x'.repeat(200), expected: 'inside' },
      { name: 'x'.repeat(201), expected: 'outside' },
    ];
    const { id, stageId } = await newPipeline();
    for (const { name, expected } of names) {
      const label = `${JSON.stringify(name.slice(0, 12))} (${name.length})`;
      const created = { name, idempotencyKey: randomUUID() };
      expectAgreement(
        `new bid ${label}`,
        expected,
        documentTakesBody('/v1/pipelines', 'post', created),
        serviceVerdict(await sandbox.call('POST', '/v1/pipelines', { key: KEY, body: created }), 'name'),
      );
      const withStage = { name: 'Bid', idempotencyKey: randomUUID(), stages: [{ name }] };
      expectAgreement(
        `new stage ${label}`,
        expected,
        documentTakesBody('/v1/pipelines', 'post', withStage),
        serviceVerdict(
          await sandbox.call('POST', '/v1/pipelines', { key: KEY, body: withStage }),
          'stages[0].name',
        ),
      );
      expectAgreement(
        `bid renamed ${label}`,
        expected,
        documentTakesBody('/v1/pipelines/{id}', 'patch', { name }),
        serviceVerdict(
          await sandbox.call('PATCH', `/v1/pipelines/${id}`, { key: KEY, body: { name } }),
          'name',
        ),
      );
      expectAgreement(
        `stage renamed ${label}`,
        expected,
        documentTakesBody('/v1/pipelines/{id}/stages/{stageId}', 'patch', { name }),
        serviceVerdict(
          await sandbox.call('PATCH', `/v1/pipelines/${id}/stages/${stageId}`, { key: KEY, body: { name } }),
          'name',
        ),
      );
    }
    // Said in a sentence naming the field.
    const blank = await sandbox.call('POST', '/v1/pipelines', {
      key: KEY,
      body: { name: '   ', idempotencyKey: randomUUID() },
    });
    expect(blank.body.errors).toEqual([{ field: 'name', message: 'must not be blank' }]);
    // A name that is taken is kept without the spaces around it.
    const renamed = await sandbox.call('PATCH', `/v1/pipelines/${id}`, {
      key: KEY,
      body: { name: '  Bid A  ' },
    });
    expect(renamed.body.data.name).toBe('Bid A');
  });

  it('4. the published and deadline filters take a real date or an instant with seconds, nothing else', async () => {
    const values: { value: string; expected: Verdict }[] = [
      { value: '2026-11-01', expected: 'inside' },
      { value: '2024-02-29', expected: 'inside' },
      { value: '2025-02-29', expected: 'outside' },
      { value: '2026-13-01', expected: 'outside' },
      { value: '2026-11-1', expected: 'outside' },
      { value: '20261101', expected: 'outside' },
      { value: '', expected: 'outside' },
      { value: '2026-11-01T09:30:00Z', expected: 'inside' },
      { value: '2026-11-01T23:59:59.999999999Z', expected: 'inside' },
      { value: '2026-11-01T09:30:00+01:00', expected: 'inside' },
      { value: '2026-11-01T09:30:00-23:59', expected: 'inside' },
      { value: '2026-11-01T09:30Z', expected: 'outside' },
      { value: '2026-11-01T09:30:00', expected: 'outside' },
      { value: '2026-11-01t09:30:00z', expected: 'outside' },
      { value: '2026-11-01 09:30:00Z', expected: 'outside' },
      { value: '2026-11-01T24:00:00Z', expected: 'outside' },
      { value: '2026-11-01T23:59:60Z', expected: 'outside' },
      { value: '2026-02-30T00:00:00Z', expected: 'outside' },
      { value: '2026-11-01T09:30:00+24:00', expected: 'outside' },
      { value: '2026-11-01T09:30:00.Z', expected: 'outside' },
    ];
    await expectTenderFilterRule(['publishedFrom', 'publishedTo', 'deadlineFrom', 'deadlineTo'], values);
  });

  it('5. valueMin and valueMax are decimal digits with an optional fraction', async () => {
    const values: { value: string; expected: Verdict }[] = [
      { value: '0', expected: 'inside' },
      { value: '100000', expected: 'inside' },
      { value: '99.5', expected: 'inside' },
      { value: '9999999999999999.999999', expected: 'inside' },
      { value: '12345678901234567', expected: 'outside' },
      { value: '1.1234567', expected: 'outside' },
      { value: '1e5', expected: 'outside' },
      { value: '0x10', expected: 'outside' },
      { value: '-1', expected: 'outside' },
      { value: '+5', expected: 'outside' },
      { value: ' 5', expected: 'outside' },
      { value: '1.', expected: 'outside' },
      { value: '.5', expected: 'outside' },
      { value: '1,5', expected: 'outside' },
      { value: '', expected: 'outside' },
    ];
    await expectTenderFilterRule(['valueMin', 'valueMax'], values);
  });

  it('6. the document itself needs no key (security: []); a route it does not say so of does', async () => {
    const cases = [
      { path: '/v1/openapi.json', url: '/v1/openapi.json' },
      { path: '/v1/tenders', url: '/v1/tenders?limit=1' },
      { path: '/v1/pipelines', url: '/v1/pipelines' },
    ];
    for (const { path, url } of cases) {
      const security = operation(path, 'get').security ?? document.security;
      const needsNoKey =
        Array.isArray(security) &&
        (security.length === 0 || security.some((option: object) => Object.keys(option).length === 0));
      const answer = await sandbox.call('GET', url, { key: null });
      expect({ path, status: answer.status }).toEqual({ path, status: needsNoKey ? 200 : 401 });
    }
    expect(operation('/v1/openapi.json', 'get').security).toEqual([]);
  });
});
