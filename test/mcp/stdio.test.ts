import { execFile } from 'node:child_process';
import type { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../support/fixture.ts';
import { startTenderbot, TENDERBOT_BIN } from '../support/process.ts';
import { startTestSandbox, type TestSandbox } from '../support/sandbox.ts';
import { callTool, describeTools } from './tool-suite.ts';

let sandbox: TestSandbox;
/** One spawned `tenderbot mcp` per key, as an assistant keeps one for its session. */
const sessions = new Map<string, Promise<Client>>();
let stderr = '';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  // Each session is a process of its own (a few seconds each on a busy machine): started here,
  // one after another, so no test's time is spent starting them.
  for (const key of SESSION_KEYS) await connect(key);
}, 240_000);
afterAll(async () => {
  for (const session of sessions.values()) await (await session).close();
  await sandbox.stop();
});

/** The keys the tests speak with. */
const SESSION_KEYS = [
  KEYS.aliceAcme,
  KEYS.aliceTendersOnly,
  KEYS.aliceExpired,
  KEYS.bobAdminAcme,
  KEYS.carolMemberAcme,
  KEYS.victorViewerAcme,
  KEYS.daveBeta,
  KEYS.basicPlan,
];

const environment = (extra: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  ...extra,
});

function connect(key: string): Promise<Client> {
  let session = sessions.get(key);
  if (!session) {
    session = (async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [TENDERBOT_BIN, 'mcp'],
        env: environment({ PROCUREMENT_API_URL: `${sandbox.baseUrl}/v1`, PROCUREMENT_API_KEY: `${key}\n` }),
        stderr: 'pipe',
      });
      const errors = transport.stderr as PassThrough | null;
      errors?.on('data', (chunk) => {
        stderr += String(chunk);
      });
      const client = new Client({ name: 'tenderbot-test', version: '1.0.0' });
      await client.connect(transport);
      return client;
    })();
    sessions.set(key, session);
  }
  return session;
}

function runMcp(env: Record<string, string>, args: string[] = []) {
  return new Promise<{ code: number; stderr: string; stdout: string }>((done) => {
    execFile(
      process.execPath,
      [TENDERBOT_BIN, 'mcp', ...args],
      { env: environment(env) },
      (error, stdout, err) => done({ code: error ? Number(error.code ?? 1) : 0, stderr: err, stdout }),
    );
  });
}

describe('tenderbot mcp on stdio (the real command line, spawned)', () => {
  describeTools(() => ({ sandbox, connect }));

  it('answers a retried creation with the record it made, in one session', async () => {
    const client = await connect(KEYS.bobAdminAcme);
    const args = { name: 'Stdio retried bid', tenderId: 'ocds-tbdemo-0000203' };
    const first = await callTool(client, 'create_bid', args);
    const again = await callTool(client, 'create_bid', args);
    expect(first.isError).toBe(false);
    expect(again.data.bid.id).toBe(first.data.bid.id);
    const named = await sandbox.call('GET', '/v1/pipelines?q=Stdio%20retried', { key: KEYS.bobAdminAcme });
    expect(named.body.data).toHaveLength(1);
  });

  it('without PROCUREMENT_API_KEY says what to set, exit 2, before speaking the protocol', async () => {
    const answer = await runMcp({ PROCUREMENT_API_URL: sandbox.baseUrl });
    expect(answer.code).toBe(2);
    expect(answer.stderr).toContain('PROCUREMENT_API_KEY is not set');
    expect(answer.stdout).toBe('');
    const wrongUrl = await runMcp({ PROCUREMENT_API_URL: 'not a url', PROCUREMENT_API_KEY: KEYS.aliceAcme });
    expect(wrongUrl.code).toBe(2);
    expect(wrongUrl.stderr).toContain('PROCUREMENT_API_URL must be the service');
    const spaced = await runMcp({ PROCUREMENT_API_KEY: 'pis_abc def' });
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toContain('no spaces');
    const stray = await runMcp({ PROCUREMENT_API_KEY: KEYS.aliceAcme }, ['--port', '4020']);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('go with --http');
  }, 120_000);

  it('tenderbot mcp --http serves /mcp with each caller’s key until SIGTERM', async () => {
    const started = await startTenderbot(
      ['mcp', '--http', '--port', '0', '--rate', '20'],
      (output) => /listening on (http:\/\/\S+\/mcp)/.exec(output)?.[1] ?? null,
      environment({ PROCUREMENT_API_URL: sandbox.baseUrl }),
    );
    const client = new Client({ name: 'tenderbot-test', version: '1.0.0' });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(started.found), {
          requestInit: { headers: { authorization: `Bearer ${KEYS.daveBeta}` } },
        }),
      );
      const bids = await callTool(client, 'list_bids', { archived: 'all' });
      expect(bids.data.items.map((item: { id: string }) => item.id)).toEqual(['pl-beta']);
    } finally {
      await client.close();
    }
    expect(await started.stop()).toBe(0);
    expect(started.output()).not.toContain(KEYS.daveBeta);
  }, 120_000);

  it('never writes a key to its standard error (after every test above)', () => {
    for (const key of Object.values(KEYS)) expect(stderr).not.toContain(key);
  });
});
