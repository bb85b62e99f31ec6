import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectInvalid } from '../../contract/contract.ts';
import { KEYS } from '../../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.ts';

// An API key sent in a URL is refused with a sentence pointing at the Authorization header, and
// it never reaches a log line: the service's real request log (pino to standard error, as
// `tenderbot sandbox serve --log-level` writes it) is captured and searched.

const key = KEYS.aliceAcme;
const secretTail = key.slice('pis_'.length);

let sandbox: TestSandbox;
const logLines: string[] = [];
const originalWrite = process.stderr.write.bind(process.stderr);

beforeAll(async () => {
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logLines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    // Kept out of the test run's own output; a callback (the last argument) is still called.
    const callback = rest.at(-1);
    if (typeof callback === 'function') callback();
    return true;
  }) as typeof process.stderr.write;
  sandbox = await startTestSandbox({ logLevel: 'info' });
});
afterAll(async () => {
  await sandbox.stop();
  process.stderr.write = originalWrite;
});

/** Query strings that carry a key, and the parameter each answer must name. */
const KEY_IN_QUERY: [string, string][] = [
  [`api_key=${key}`, 'api_key'],
  [`apiKey=${key}`, 'apiKey'],
  [`API-KEY=${key}`, 'API-KEY'],
  [`key=${key}`, 'key'],
  [`token=${key}`, 'token'],
  [`access_token=${key}`, 'access_token'],
  [`limit=5&q=${key}`, 'q'],
  [`q=${encodeURIComponent(key).replace('_', '%5F')}`, 'q'],
  [`region=North%20West&q=cleaning+${key}`, 'q'],
  ['token=', 'token'],
];

describe('an API key in the query string', () => {
  it('is refused with 400 naming the parameter and saying to use the Authorization header', async () => {
    expect(KEY_IN_QUERY.length).toBeGreaterThan(0);
    for (const [query, parameter] of KEY_IN_QUERY) {
      for (const path of ['/v1/tenders', '/v1/nothing-here', '/v1/openapi.json', '/v1/tenders/%E0%A4%A']) {
        // Also with a valid header: the key in the URL is already exposed, so it is refused anyway.
        for (const headerKey of [undefined, key]) {
          const answer = await sandbox.call('GET', `${path}?${query}`, { key: headerKey });
          expectInvalid(answer, [parameter]);
          expect(answer.body.errors[0].message).toContain('Authorization');
          expect(answer.text).not.toContain(secretTail);
        }
      }
    }
  });

  it('never reaches a log line; the log shows the request with the value redacted', async () => {
    await sandbox.call('GET', `/v1/tenders/${key}`, { key });
    const joined = logLines.join('');
    expect(logLines.length).toBeGreaterThan(0);
    const requestLines = logLines.filter((line) => line.includes('"incoming request"'));
    expect(requestLines.length).toBeGreaterThanOrEqual(KEY_IN_QUERY.length * 8);
    expect(joined).toContain('/v1/tenders?api_key=[redacted]');
    expect(joined).toContain('/v1/tenders?limit=5&q=[redacted]');
    expect(joined).toContain('/v1/tenders/[redacted]');
    expect(joined).not.toContain(secretTail);
  });
});
