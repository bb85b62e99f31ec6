import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { type RunningSandbox, startSandbox } from '../../src/service/sandbox.ts';
import { testFixture } from './fixture.ts';

/** Demo tenders in the test database: enough for a buyer and a framework over the 100 cap. */
export const TEST_DEMO_TENDERS = 700;

export interface TestSandbox extends RunningSandbox {
  dir: string;
  dbPath: string;
  /** A request to the running server over loopback, as `key`. */
  call(
    method: string,
    path: string,
    options?: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<ApiAnswer>;
  stop(): Promise<void>;
}

export interface ApiAnswer {
  status: number;
  headers: Record<string, string>;
  // Tests read JSON answers by their documented shapes.
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field.
  body: any;
  text: string;
}

/** A real server on a real SQLite file in a temporary folder, on a free loopback port. */
export async function startTestSandbox(
  options: {
    fixture?: object;
    demo?: number;
    clock?: () => Date;
    dir?: string;
    logLevel?: string;
    /** OCDS files to import instead of the demo data set. */
    imports?: string[];
  } = {},
): Promise<TestSandbox> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'tenderbot-test-'));
  const dbPath = join(dir, 'service.db');
  const fixturePath = join(dir, 'fixture.json');
  writeFileSync(fixturePath, JSON.stringify(options.fixture ?? testFixture()));
  const sandbox = await startSandbox({
    db: dbPath,
    port: 0,
    fixture: fixturePath,
    demo: options.demo ?? TEST_DEMO_TENDERS,
    clock: options.clock,
    logLevel: options.logLevel,
    imports: options.imports,
  });
  return {
    ...sandbox,
    dir,
    dbPath,
    call: (method, path, callOptions = {}) => callApi(sandbox.baseUrl, method, path, callOptions),
    stop: async () => {
      await sandbox.close();
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function callApi(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] ??= 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await request(`${baseUrl}${path}`, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  const flatHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flatHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let parsed: unknown = null;
  if (text.length > 0 && /json/.test(flatHeaders['content-type'] ?? '')) parsed = JSON.parse(text);
  return { status: response.statusCode, headers: flatHeaders, body: parsed, text };
}

/**
 * `callApi` for tests that send many requests with one key: a 429 is waited out for the seconds
 * its Retry-After names and the request sent again (a refused request did nothing, so sending
 * it again is safe for writes too). After `attempts` refusals the last 429 is returned, so a
 * limiter that never lets go fails the test rather than hanging it.
 */
export async function callApiWithinRate(
  baseUrl: string,
  method: string,
  path: string,
  options: Parameters<typeof callApi>[3] = {},
  attempts = 10,
): Promise<ApiAnswer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await callApi(baseUrl, method, path, options);
    if (answer.status !== 429 || attempt >= attempts) return answer;
    const waitSeconds = Number(answer.headers['retry-after'] ?? '1');
    await new Promise((resolve) =>
      setTimeout(resolve, (Number.isFinite(waitSeconds) ? waitSeconds : 1) * 1000 + 50),
    );
  }
}

/**
 * Sends `text` as-is over a fresh TCP connection and reads what comes back until the server
 * closes it (or `timeoutMs` passes): for requests no HTTP client would send.
 */
export async function rawHttp(baseUrl: string, request: string, timeoutMs = 3000): Promise<ApiAnswer> {
  const { port, hostname } = new URL(baseUrl);
  const received = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let data = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no end of answer within ${timeoutMs} ms; got: ${data.slice(0, 200)}`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(data);
    });
    socket.on('error', () => undefined);
  });
  const [head = '', ...rest] = received.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = rest.join('\r\n\r\n');
  let body: unknown = null;
  if (/json/.test(headers['content-type'] ?? '') && text.length > 0) body = JSON.parse(text);
  return { status: Number(statusLine.split(' ')[1]), headers, body, text };
}
