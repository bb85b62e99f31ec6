import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInvalid, expectProblem } from '../../contract/contract.ts';
import { firstAnswerToExpect } from '../../support/expect-continue.ts';
import { KEYS } from '../../support/fixture.ts';
import { rawHttp, startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

// Every error the framework or Node's HTTP parser raises answers in CONTRACT §2's shape, with a
// request id in the header and the body, never the framework's own `{ error, message }`.

let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(() => sandbox.stop());

const key = KEYS.aliceAcme;
const auth = `Authorization: Bearer ${key}\r\n`;

describe('errors Fastify raises', () => {
  it('a broken percent-encoding in the path: 400 naming path, after the key check', async () => {
    expectInvalid(await sandbox.call('GET', '/v1/tenders/%E0%A4%A', { key }), ['path']);
    expectProblem(await sandbox.call('GET', '/v1/tenders/%E0%A4%A'), 401, 'missing_api_key');
  });

  it('a method no route serves (PUT, OPTIONS, TRACE, PROPFIND): 404 after the key check', async () => {
    for (const method of ['PUT', 'OPTIONS', 'TRACE', 'PROPFIND']) {
      expectProblem(await sandbox.call(method, '/v1/tenders', { key }), 404, 'not_found');
      expectProblem(await sandbox.call(method, '/v1/tenders'), 401, 'missing_api_key');
    }
  });

  it('an unknown route: 404 after the key check, also outside /v1', async () => {
    expectProblem(await sandbox.call('GET', '/v1/nothing-here', { key }), 404, 'not_found');
    expectProblem(await sandbox.call('GET', '/v1/nothing-here'), 401, 'missing_api_key');
    expectProblem(await sandbox.call('GET', '/v2/tenders'), 404, 'not_found');
  });

  it('an unsupported content type: 400 naming body', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      expectInvalid(
        await sandbox.call('POST', '/v1/pipelines', {
          key,
          rawBody: 'name=x',
          headers: { 'content-type': type },
        }),
        ['body'],
      );
    }
  });

  it('a body over 1 MiB: 400 naming body, whether or not Content-Length says so', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2_000_000) });
    expectInvalid(await sandbox.call('POST', '/v1/pipelines', { key, rawBody: big }), ['body']);
    const chunked = await rawHttp(
      sandbox.baseUrl,
      `POST /v1/pipelines HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${(2_000_000).toString(16)}\r\n${'x'.repeat(2_000_000)}\r\n0\r\n\r\n`,
    );
    expectInvalid(chunked, ['body']);
  });

  it('a body over 1 MiB sent with Expect: 100-continue is not invited: 400 before a byte is sent', async () => {
    const url = `${sandbox.baseUrl}/v1/pipelines`;
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    expect(await firstAnswerToExpect(url, 2_000_000, headers)).toBe(400);
    expect(await firstAnswerToExpect(url, 100, headers)).toBe(100);
  });

  it('malformed JSON, an empty JSON body, and no body at all: 400 naming body', async () => {
    expectInvalid(await sandbox.call('POST', '/v1/pipelines', { key, rawBody: '{"name": ' }), ['body']);
    expectInvalid(await sandbox.call('POST', '/v1/pipelines', { key, rawBody: '' }), ['body']);
    expectInvalid(await sandbox.call('POST', '/v1/pipelines', { key }), ['body']);
  });
});

describe('requests Node’s HTTP parser refuses, answered as problems on the raw connection', () => {
  const cases: [string, string][] = [
    ['an unknown method', `FOO /v1/tenders HTTP/1.1\r\nHost: x\r\n${auth}\r\n`],
    [
      'a control character in a header',
      `GET /v1/tenders HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n${auth}\r\n`,
    ],
    ['a space in a header name', `GET /v1/tenders HTTP/1.1\r\nHost: x\r\nBad Header: a\r\n${auth}\r\n`],
    [
      'a Content-Length that is not a number',
      `POST /v1/pipelines HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: abc\r\n\r\n{}`,
    ],
    [
      'both Content-Length and Transfer-Encoding',
      `POST /v1/pipelines HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`,
    ],
    [
      'headers over 16 KiB',
      `GET /v1/tenders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n${auth}\r\n`,
    ],
    [
      'a request line over 16 KiB',
      `GET /v1/tenders/${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    ],
    ['an unknown HTTP version', `GET /v1/tenders HTTP/9.9\r\nHost: x\r\n${auth}\r\n`],
    ['a space in the URL', `GET /v1/ten ders HTTP/1.1\r\nHost: x\r\n${auth}\r\n`],
    [
      'a broken chunk size',
      `POST /v1/pipelines HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    ],
    ['an HTTP/1.1 request without Host', `GET /v1/tenders HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`],
    [
      'an Expect other than 100-continue',
      `POST /v1/pipelines HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\nExpect: magic\r\n\r\n{}`,
    ],
    ['a CONNECT', `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: x\r\n${auth}\r\n`],
  ];
  for (const [name, request] of cases) {
    it(`${name}: 400 invalid_request with a request id`, async () => {
      const answer = await rawHttp(sandbox.baseUrl, request);
      expectProblem(answer, 400, 'invalid_request');
      expect(answer.body.errors.length).toBe(1);
    });
  }

  it('goes on serving on other connections afterwards', async () => {
    expect((await sandbox.call('GET', '/v1/tenders?limit=1', { key })).status).toBe(200);
  });
});
