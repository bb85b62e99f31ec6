import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nonEmpty } from '../../contract/contract.ts';
import { KEYS, TENDER_A } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

const key = KEYS.aliceAcme;

async function expectInvalid(answer: Awaited<ReturnType<TestSandbox['call']>>, fields: string[]) {
  expect(answer.status, answer.text).toBe(400);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body.code).toBe('invalid_request');
  expect(answer.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(
    [...fields].sort(),
  );
  for (const error of nonEmpty(answer.body.errors)) expect(error.message.length).toBeGreaterThan(0);
}

describe('query parameters', () => {
  it('names limit and offset when they are not whole numbers in range', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-1']) {
      await expectInvalid(await sandbox.call('GET', `/v1/tenders?${query}`, { key }), ['limit']);
    }
    await expectInvalid(await sandbox.call('GET', '/v1/tenders?offset=-3', { key }), ['offset']);
    await expectInvalid(await sandbox.call('GET', '/v1/buyers?offset=x', { key }), ['offset']);
  });

  it('names an unknown enumerated value, a malformed date or id, and an unknown parameter', async () => {
    await expectInvalid(await sandbox.call('GET', '/v1/tenders?status=bogus', { key }), ['status']);
    await expectInvalid(await sandbox.call('GET', '/v1/pipelines?archived=maybe', { key }), ['archived']);
    await expectInvalid(await sandbox.call('GET', '/v1/frameworks?type=lots', { key }), ['type']);
    await expectInvalid(await sandbox.call('GET', '/v1/tenders?publishedFrom=yesterday', { key }), [
      'publishedFrom',
    ]);
    await expectInvalid(await sandbox.call('GET', '/v1/tenders?buyerId=42', { key }), ['buyerId']);
    await expectInvalid(await sandbox.call('GET', '/v1/tenders?cpv=abc', { key }), ['cpv']);
    await expectInvalid(await sandbox.call('GET', '/v1/tenders?valueMin=lots', { key }), ['valueMin']);
    await expectInvalid(await sandbox.call('GET', '/v1/tenders?regoin=London', { key }), ['regoin']);
  });

  it('names entityType and entityId when a comment list lacks them', async () => {
    await expectInvalid(await sandbox.call('GET', '/v1/comments', { key }), ['entityType', 'entityId']);
    await expectInvalid(await sandbox.call('GET', '/v1/comments?entityType=contract&entityId=x', { key }), [
      'entityType',
    ]);
  });
});

describe('bodies', () => {
  it('answers malformed JSON, a non-object and a missing body with a 400 naming the body', async () => {
    await expectInvalid(
      await sandbox.call('POST', '/v1/comments', { key, rawBody: '{"entityType": "tender",' }),
      ['body'],
    );
    await expectInvalid(await sandbox.call('POST', '/v1/comments', { key, rawBody: '[1,2]' }), ['body']);
    await expectInvalid(await sandbox.call('POST', '/v1/comments', { key, rawBody: '"text"' }), ['body']);
    await expectInvalid(await sandbox.call('POST', '/v1/pipelines', { key }), ['body']);
    await expectInvalid(
      await sandbox.call('POST', '/v1/pipelines', {
        key,
        rawBody: 'name=x',
        headers: { 'content-type': 'text/plain' },
      }),
      ['body'],
    );
  });

  it('names every wrong field by its path, body fields included in arrays', async () => {
    const answer = await sandbox.call('POST', '/v1/pipelines', {
      key,
      body: {
        name: 42,
        idempotencyKey: 'not-a-uuid',
        targetSubmissionDate: '01/12/2026',
        stages: [{ name: 'ok' }, { name: '', expectedDurationDays: 'three' }],
        colour: 'blue',
      },
    });
    await expectInvalid(answer, [
      'name',
      'idempotencyKey',
      'targetSubmissionDate',
      'stages[1].name',
      'stages[1].expectedDurationDays',
      'colour',
    ]);
  });

  it('names missing required fields', async () => {
    await expectInvalid(await sandbox.call('POST', '/v1/comments', { key, body: {} }), [
      'entityType',
      'entityId',
      'body',
      'idempotencyKey',
    ]);
    await expectInvalid(
      await sandbox.call('POST', '/v1/pipelines/pl-bob/archive', { key, body: { archived: 'yes' } }),
      ['archived'],
    );
  });

  it('writes nothing for a refused request: no comment, no pipeline, no idempotency key', async () => {
    const idempotencyKey = randomUUID();
    const before = await sandbox.call(
      'GET',
      `/v1/comments?entityType=tender&entityId=${TENDER_A}&limit=100`,
      { key },
    );
    await expectInvalid(
      await sandbox.call('POST', '/v1/comments', {
        key,
        body: { entityType: 'tender', entityId: TENDER_A, body: 'x'.repeat(5001), idempotencyKey },
      }),
      ['body'],
    );
    const after = await sandbox.call('GET', `/v1/comments?entityType=tender&entityId=${TENDER_A}&limit=100`, {
      key,
    });
    expect(after.body.pagination.total).toBe(before.body.pagination.total);
    const valid = await sandbox.call('POST', '/v1/comments', {
      key,
      body: { entityType: 'tender', entityId: TENDER_A, body: 'fine now', idempotencyKey },
    });
    expect(valid.status).toBe(201);
  });

  it('survives a burst of garbage: the process answers normally afterwards', async () => {
    const garbage = ['{', '}', 'null', '{"a":', '\u0000\u0001', '{"entityType":{"$gt":""}}', '9'.repeat(400)];
    const answers = await Promise.all(
      garbage.map((rawBody) => sandbox.call('POST', '/v1/comments', { key, rawBody })),
    );
    for (const answer of answers) expect(answer.status).toBe(400);
    const oversized = await sandbox.call('POST', '/v1/comments', {
      key,
      rawBody: JSON.stringify({ body: 'x'.repeat(2_000_000) }),
    });
    expect(oversized.status).toBe(400);
    expect((await sandbox.call('GET', '/v1/tenders?limit=1', { key })).status).toBe(200);
  });
});

describe('text that is not Unicode', () => {
  /** A POST of these exact bytes, as JSON. */
  const postBytes = async (path: string, bytes: Buffer) => {
    const answer = await request(`${sandbox.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: bytes,
    });
    const text = await answer.body.text();
    return {
      status: answer.statusCode,
      headers: answer.headers as Record<string, string>,
      text,
      body: JSON.parse(text),
    };
  };
  const comment = (body: string) =>
    `{"entityType":"tender","entityId":"${TENDER_A}","body":${body},"idempotencyKey":"${randomUUID()}"}`;

  it('refuses bytes that are no UTF-8 (a lone surrogate as ED A0 80) naming body, and stores nothing', async () => {
    const before = (await sandbox.call('GET', `/v1/comments?entityType=tender&entityId=${TENDER_A}`, { key }))
      .body.pagination.total;
    // The comment's JSON up to its body's text, the three bytes, then the rest.
    const whole = Buffer.concat([
      Buffer.from(
        `{"entityType":"tender","entityId":"${TENDER_A}","idempotencyKey":"${randomUUID()}","body":"a`,
      ),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('b"}'),
    ]);
    await expectInvalid(await postBytes('/v1/comments', whole), ['body']);
    expect(
      (await sandbox.call('GET', `/v1/comments?entityType=tender&entityId=${TENDER_A}`, { key })).body
        .pagination.total,
    ).toBe(before);
  });

  it('refuses half a character sent as a JSON escape, naming the field that holds it', async () => {
    await expectInvalid(await postBytes('/v1/comments', Buffer.from(comment('"a\\ud800b"'))), ['body']);
    await expectInvalid(await postBytes('/v1/comments', Buffer.from(comment('"\\udfff"'))), ['body']);
    const pipeline = `{"name":"Bid","stages":[{"name":"ok"},{"name":"x\\udc00"}],"idempotencyKey":"${randomUUID()}"}`;
    await expectInvalid(await postBytes('/v1/pipelines', Buffer.from(pipeline)), ['stages[1].name']);
    // The same bid with whole characters is made.
    const made = await postBytes('/v1/pipelines', Buffer.from(pipeline.replace('\\udc00', '')));
    expect(made.status, made.text).toBe(201);
    // A whole pair, escaped, is one character: taken.
    const pair = await postBytes('/v1/comments', Buffer.from(comment('"rocket \\ud83d\\ude80"')));
    expect(pair.status, pair.text).toBe(201);
    expect(pair.body.data.body).toBe('rocket 🚀');
  });
});
