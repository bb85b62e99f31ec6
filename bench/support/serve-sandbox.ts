import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SCOPES } from '../../src/contract/schemas.ts';

/** The key every benchmark uses, with a rate no benchmark reaches: they measure the service, not its refusals. */
export const BENCH_KEY = 'pis_bench_0123456789abcdefghijklmnopqrstuvwxyzAB';

export interface ServedSandbox {
  baseUrl: string;
  stop(): Promise<void>;
}

/** A fresh folder with a fixture holding the bench key; removed by `cleanup`. */
export function benchFolder(prefix: string): { dir: string; fixture: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const fixture = join(dir, 'fixture.json');
  writeFileSync(
    fixture,
    JSON.stringify({
      organisations: [{ id: 'org-bench', name: 'Bench', plan: 'enterprise' }],
      users: [{ id: 'usr-bench', name: 'Bench' }],
      memberships: [{ organisationId: 'org-bench', userId: 'usr-bench', role: 'owner' }],
      apiKeys: [
        {
          key: BENCH_KEY,
          organisationId: 'org-bench',
          userId: 'usr-bench',
          scopes: SCOPES,
          rateLimitPerSecond: 10_000_000,
        },
      ],
    }),
  );
  return { dir, fixture, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `tenderbot sandbox serve` as its own process, as a deployment runs it, and resolves with its base URL. */
export async function serveSandbox(args: {
  db: string;
  fixture: string;
  demo: number;
  extra?: string[];
}): Promise<ServedSandbox> {
  const bin = resolve(import.meta.dirname, '../../bin/tenderbot.js');
  const serveArgs = [
    'sandbox',
    'serve',
    '--db',
    args.db,
    '--port',
    '0',
    '--demo',
    String(args.demo),
    '--fixture',
    args.fixture,
  ];
  const child = spawn(process.execPath, [bin, ...serveArgs, ...(args.extra ?? [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const baseUrl = await new Promise<string>((ready, fail) => {
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)\/v1/.exec(output);
      if (match?.[1]) ready(match[1]);
    });
    child.once('exit', (code) => fail(new Error(`server exited with ${code}:\n${output}`)));
  });
  return {
    baseUrl,
    stop: async () => {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
