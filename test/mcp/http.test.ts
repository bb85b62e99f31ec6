import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningMcpHttp, startMcpHttp } from '../../src/mcp/http.ts';
import { createMcpLogger } from '../../src/mcp/logger.ts';
import { firstAnswerToExpect } from '../support/expect-continue.ts';
import { startFaultServer } from '../support/fault-server.ts';
import { KEYS, TENDER_A } from '../support/fixture.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { passOn } from '../support/service-proxy.ts';
import { callTool, describeTools, TOOL_NAMES } from './tool-suite.ts';

let sandbox: TestSandbox;
let mcp: RunningMcpHttp;
let logged = '';
const clients: Client[] = [];

const ALLOWED_ORIGIN = 'https://assistant.example';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logged += String(chunk);
      done();
    },
  });
  mcp = await startMcpHttp({
    serviceUrl: sandbox.baseUrl,
    port: 0,
    allowedOrigins: [ALLOWED_ORIGIN],
    logger: createMcpLogger('debug', logStream),
    // One key makes the whole suite's calls, faster than 50 a second on a quiet machine; the
    // endpoint's rate has its own test below (and the service still holds the key to its own).
    ratePerSecond: 100_000,
  });
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await mcp.close();
  await sandbox.stop();
});

async function connect(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'tenderbot-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcp.url), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A raw POST to the endpoint, for what no SDK client would send. */
async function post(headers: Record<string, string>, body: string, url = mcp.url) {
  const response = await request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('MCP over Streamable HTTP', () => {
  describeTools(() => ({ sandbox, connect }));

  it('without a key answers 401 and says how to send one', async () => {
    const answer = await post({}, INITIALIZE);
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(JSON.parse(answer.text).error.message).toContain('Authorization: Bearer <key>');
    await expect(connect('')).rejects.toThrow();
  });

  it('refuses a request from an origin it does not know (403), and serves one it was told', async () => {
    const refused = await post(
      { authorization: `Bearer ${KEYS.aliceAcme}`, origin: 'https://evil.example' },
      INITIALIZE,
    );
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text).error.message).toContain('https://evil.example');
    await expect(connect(KEYS.aliceAcme, { origin: 'http://localhost:8080' })).rejects.toThrow(/403|origin/i);
    const allowed = await connect(KEYS.aliceAcme, { origin: ALLOWED_ORIGIN });
    expect((await allowed.listTools()).tools).toHaveLength(TOOL_NAMES.length);
    // A browser's preflight (no key) for the allowed origin is answered; for another, refused.
    const preflight = await request(mcp.url, {
      method: 'OPTIONS',
      headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ALLOWED_ORIGIN);
    expect(String(preflight.headers['access-control-allow-headers'])).toContain('Authorization');
    await preflight.body.dump();
    const foreign = await request(mcp.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    await foreign.body.dump();
  });

  it('refuses a Host it does not serve (DNS rebinding), whatever the key', async () => {
    const answer = await post(
      { authorization: `Bearer ${KEYS.aliceAcme}`, host: 'attacker.example' },
      INITIALIZE,
    );
    expect(answer.status).toBe(403);
  });

  it('refuses a body over the service’s limit (413) and GET (405: stateless)', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(1024 * 1024) },
    });
    const answer = await post({ authorization: `Bearer ${KEYS.aliceAcme}` }, big);
    expect(answer.status).toBe(413);
    const get = await request(mcp.url, { headers: { authorization: `Bearer ${KEYS.aliceAcme}` } });
    expect(get.statusCode).toBe(405);
    await get.body.dump();
    const keyless = await request(mcp.url);
    expect(keyless.statusCode).toBe(401);
    await keyless.body.dump();
  });

  it('does not invite a body over the limit: Expect: 100-continue is answered 413 before it is sent', async () => {
    const headers = { Authorization: `Bearer ${KEYS.aliceAcme}`, 'Content-Type': 'application/json' };
    expect(await firstAnswerToExpect(mcp.url, 2 * 1024 * 1024, headers)).toBe(413);
    expect(await firstAnswerToExpect(mcp.url, 1000, headers)).toBe(100);
  });

  it('holds each key to its rate, as the service does, and another key is not held by it', async () => {
    const limited = await startMcpHttp({
      serviceUrl: sandbox.baseUrl,
      port: 0,
      ratePerSecond: 1,
      logger: createMcpLogger('silent'),
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          post({ authorization: `Bearer ${KEYS.aliceAcme}` }, INITIALIZE, limited.url),
        ),
      );
      const refused = answers.filter((answer) => answer.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]?.headers['retry-after']).toBe('1');
      expect(answers.some((answer) => answer.status === 200)).toBe(true);
    } finally {
      await limited.close();
    }
  });

  it('counts each message of a batch against the key’s rate: a batch cannot make more calls than the limit', async () => {
    const limited = await startMcpHttp({
      serviceUrl: sandbox.baseUrl,
      port: 0,
      ratePerSecond: 10,
      logger: createMcpLogger('silent'),
    });
    const batchOf = (count: number) =>
      JSON.stringify(
        Array.from({ length: count }, (_, index) => ({
          jsonrpc: '2.0',
          id: index + 1,
          method: 'tools/call',
          params: { name: 'get_tender', arguments: { id: TENDER_A } },
        })),
      );
    try {
      const headers = { authorization: `Bearer ${KEYS.aliceAcme}` };
      const small = await post(headers, batchOf(3), limited.url);
      expect(small.status).not.toBe(429);
      const large = await post(headers, batchOf(100), limited.url);
      expect(large.status).toBe(429);
      expect(large.text).toContain('a batch’s messages each counted'.replace('’', "'"));
      const notJson = await post({ authorization: `Bearer ${KEYS.daveBeta}` }, '{"jsonrpc": ', limited.url);
      expect(notJson.status).toBe(400);
      expect(notJson.text).toContain('not JSON');
    } finally {
      await limited.close();
    }
  });

  it('a bearer key of another organisation is passed through as it is: the service decides', async () => {
    const beta = await connect(KEYS.aliceBeta);
    const bids = await callTool(beta, 'list_bids', { archived: 'all', limit: 100 });
    expect(bids.isError).toBe(false);
    // Alice in Beta owns no bid there and none is shared with her (pl-beta is Dave's).
    expect(bids.data.items).toEqual([]);
    const dave = await callTool(await connect(KEYS.daveBeta), 'list_bids', { archived: 'all', limit: 100 });
    expect(dave.data.items.map((item: { id: string }) => item.id)).toEqual(['pl-beta']);
    const unknown = await callTool(await connect('pis_not_a_real_key_0123456789abcdefghijk'), 'get_tender', {
      id: TENDER_A,
    });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('The API key is not recognised.');
  });

  it('a creation retried over a new connection (each request stands alone) still makes one record', async () => {
    const args = { name: `HTTP retried bid ${Date.now()}`, summary: 'retried' };
    const first = await callTool(await connect(KEYS.carolMemberAcme), 'create_bid', args);
    const again = await callTool(await connect(KEYS.carolMemberAcme), 'create_bid', args);
    expect(first.isError, first.text).toBe(false);
    expect(again.data.bid.id).toBe(first.data.bid.id);
    // Another caller with the same arguments makes a record of their own.
    const other = await callTool(await connect(KEYS.aliceAcme), 'create_bid', args);
    expect(other.data.bid.id).not.toBe(first.data.bid.id);
  });

  it('a post whose every answer was lost, retried by the assistant, is one comment', async () => {
    // In front of the real service: while `losing`, a comment's POST reaches the service (which
    // creates it) but its answer is cut off, as a dropped connection would.
    let losing = true;
    let posts = 0;
    const proxy = createServer((incoming, outgoing) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const isPost = incoming.method === 'POST' && incoming.url === '/v1/comments';
        if (isPost) posts++;
        if (!(isPost && losing)) return void passOn(sandbox.baseUrl, incoming, chunks, outgoing);
        const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
        passOn(sandbox.baseUrl, incoming, chunks, sink as never).catch(() => undefined);
        setImmediate(() => incoming.socket.destroy());
      });
    });
    await new Promise<void>((ready) => proxy.listen(0, '127.0.0.1', ready));
    const lossy = await startMcpHttp({
      serviceUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      port: 0,
      logger: createMcpLogger('silent'),
    });
    const client = new Client({ name: 'tenderbot-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(lossy.url), {
        requestInit: { headers: { authorization: `Bearer ${KEYS.bobAdminAcme}` } },
      }),
    );
    try {
      const body = `Worth a look: they re-tender in spring. ${randomUUID()}`;
      const args = { entityType: 'tender', entityId: TENDER_A, body };
      const lost = await callTool(client, 'post_comment', args);
      expect(lost.isError).toBe(true);
      expect(lost.text).toContain('could not be reached');
      expect(posts).toBe(3);
      losing = false;
      const retried = await callTool(client, 'post_comment', args);
      expect(retried.isError, retried.text).toBe(false);
      const thread = await sandbox.call(
        'GET',
        `/v1/comments?entityType=tender&entityId=${TENDER_A}&limit=100`,
        {
          key: KEYS.bobAdminAcme,
        },
      );
      const posted = thread.body.data.filter((comment: { body: string }) => comment.body === body);
      expect(posted.map((comment: { id: string }) => comment.id)).toEqual([retried.data.comment.id]);
    } finally {
      await client.close();
      await lossy.close();
      await new Promise<void>((done) => {
        proxy.closeAllConnections();
        proxy.close(() => done());
      });
    }
  });

  it('passes the caller’s key through as it came; a broken or unreachable service is a sentence, never a stack', async () => {
    const faults = await startFaultServer();
    const broken = await startMcpHttp({
      serviceUrl: faults.baseUrl,
      port: 0,
      logger: createMcpLogger('silent'),
    });
    const client = new Client({ name: 'tenderbot-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(broken.url), {
        requestInit: { headers: { authorization: `Bearer ${KEYS.carolMemberAcme}` } },
      }),
    );
    try {
      faults.play([{ status: 200, body: { data: [{ nonsense: true }], pagination: {} } }]);
      const odd = await callTool(client, 'search_tenders', { q: 'cleaning' });
      expect(faults.seen[0]?.headers.authorization).toBe(`Bearer ${KEYS.carolMemberAcme}`);
      expect(faults.seen[0]?.url).toBe('/v1/tenders?q=cleaning&offset=0');
      expect(odd.isError).toBe(true);
      expect(odd.text).toContain('answered in a shape this server does not know');
      faults.play(['reset']);
      const gone = await callTool(client, 'list_bids', {});
      expect(gone.isError).toBe(true);
      expect(gone.text).toContain('could not be reached');
      faults.play([{ status: 503, body: { code: 'internal_error', detail: 'db down', requestId: 'r-1' } }]);
      const failing = await callTool(client, 'get_bid', { id: 'pl-bob' });
      expect(failing.isError).toBe(true);
      expect(failing.text).toMatch(/^The service failed \(503\)/);
      for (const text of [odd.text, gone.text, failing.text]) expect(text).not.toMatch(/\n\s+at |Error:/);
    } finally {
      await client.close();
      await broken.close();
      await faults.stop();
    }
  });

  it('never logs a key (after every test above)', () => {
    expect(logged).toContain('mcp request');
    for (const key of Object.values(KEYS)) expect(logged).not.toContain(key);
    expect(logged).not.toContain('pis_not_a_real_key');
  });
});
