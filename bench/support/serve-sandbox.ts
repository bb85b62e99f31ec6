import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SCOPES } from '../../src/contract/schemas.ts';
import { BENCH_NODE_FLAGS, SOURCES_BIN } from './node-flags.ts';

/** The key every benchmark uses, with a rate no benchmark reaches: they measure the service, not its refusals. */
export const BENCH_KEY = 'pis_bench_0123456789abcdefghijklmnopqrstuvwxyzAB';

export interface ServedSandbox {
  baseUrl: string;
  /** The server's process id (to read its memory from /proc). */
  pid: number;
  stop(): Promise<void>;
}

/**
 * A fresh folder with a fixture holding the bench key (and whatever else a benchmark adds, such as
 * bids); removed by `cleanup`.
 */
export function benchFolder(
  prefix: string,
  extra: Record<string, unknown> = {},
): { dir: string; fixture: string; cleanup(): void } {
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
      ...extra,
    }),
  );
  return { dir, fixture, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Starts `tenderbot sandbox serve` as its own process, as a deployment runs it (with the command's
 * Node flags), and resolves with its base URL.
 */
export async function serveSandbox(args: {
  db: string;
  fixture: string;
  demo: number;
  extra?: string[];
}): Promise<ServedSandbox> {
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
  return serveProcess(
    [...BENCH_NODE_FLAGS, SOURCES_BIN, ...serveArgs, ...(args.extra ?? [])],
    /listening on (http:\/\/\S+)\/v1/,
  );
}

/** Starts the plain Fastify + SQLite server of bench/support/serve-plain.ts over `db` (read only). */
export async function servePlain(db: string): Promise<ServedSandbox> {
  const script = resolve(import.meta.dirname, 'serve-plain.ts');
  // With tenderbot's Node flags too: the comparison is of the servers, not of their heaps.
  return serveProcess(
    [...BENCH_NODE_FLAGS, '--import', 'tsx', script, '--db', db],
    /listening on (http:\/\/\S+)/,
  );
}

/**
 * Runs `node ARGS` and resolves once `ready` finds the base URL in its standard output (a pattern
 * whose first group is the URL, or a function). Output after that is read and dropped.
 */
export async function serveProcess(
  args: string[],
  ready: RegExp | ((output: string) => string | null),
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServedSandbox> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  const find = typeof ready === 'function' ? ready : (output: string) => ready.exec(output)?.[1] ?? null;
  const baseUrl = await new Promise<string>((found, fail) => {
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk;
      const url = find(output);
      if (url) {
        child.stdout.off('data', collect);
        child.stdout.resume();
        child.off('exit', exitedEarly);
        found(url);
      }
    };
    const exitedEarly = (code: number | null) => fail(new Error(`server exited with ${code}:\n${output}`));
    child.stdout.on('data', collect);
    child.once('exit', exitedEarly);
  });
  return {
    baseUrl,
    pid: child.pid as number,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resident memory of a process, in bytes (Linux /proc); null elsewhere. */
export function residentBytes(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
