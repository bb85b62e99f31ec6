import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nginxConfig } from '../../../src/deploy/nginx-config.ts';

/** Debian's nginx binary (apt-get install nginx-light). */
export const NGINX = process.env.NGINX_BIN ?? '/usr/sbin/nginx';

export interface RunningNginx {
  /** `http://127.0.0.1:PORT`, where nginx listens. */
  url: string;
  dir: string;
  /** The access log so far, one line per request (src/deploy/nginx-config.ts ACCESS_LOG_FORMAT). */
  accessLog(): string[];
  /** nginx's own error log so far. */
  errorLog(): string;
  stop(): Promise<void>;
}

/** A free loopback port (free when asked: nginx may still lose it to another process, so callers retry). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('no free port');
  return address.port;
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts nginx of its own (never the system service), in the foreground, with the generated
 * configuration for `upstreams`, in a new folder that holds its pid, logs and temporary files;
 * resolves once it accepts connections. Tries three free ports in case one is taken meanwhile.
 */
export async function startNginx(upstreams: readonly string[]): Promise<RunningNginx> {
  if (!existsSync(NGINX))
    throw new Error(`nginx is not installed at ${NGINX}: apt-get install nginx-light (or set NGINX_BIN)`);
  let lastError: Error | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(upstreams, await freePort());
    } catch (error) {
      lastError = error as Error;
      if (!/in use/.test(lastError.message)) break;
    }
  }
  throw lastError;
}

async function startOnce(upstreams: readonly string[], port: number): Promise<RunningNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'tenderbot-nginx-'));
  // As root, nginx's worker runs as nobody and must reach its temporary folders under this one.
  chmodSync(dir, 0o755);
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig({ upstreams, listen: `127.0.0.1:${port}` }));
  const errorLog = join(dir, 'error.log');
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', errorLog, '-g', 'daemon off;'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const readLog = () => {
    try {
      return readFileSync(errorLog, 'utf8');
    } catch {
      return '';
    }
  };
  const started = Date.now();
  for (;;) {
    if (!alive()) throw new Error(`nginx exited before it listened:\n${output}\n${readLog()}`);
    if (await answers(port)) break;
    if (Date.now() - started > 20_000) {
      child.kill('SIGKILL');
      throw new Error(`nginx did not listen within 20 s:\n${output}\n${readLog()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    dir,
    accessLog: () => {
      try {
        return readFileSync(join(dir, 'access.log'), 'utf8').split('\n').filter(Boolean);
      } catch {
        return [];
      }
    },
    errorLog: readLog,
    stop: async () => {
      if (alive()) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One access log line read back: the upstream(s) that served it and their statuses. */
export interface AccessLine {
  /** When nginx finished the request (epoch ms). */
  at: number;
  method: string;
  uri: string;
  status: number;
  /** Each copy tried, in order (two when nginx retried the request on the second). */
  upstreams: string[];
  upstreamStatuses: string[];
}

export function parseAccessLine(line: string): AccessLine {
  const match = /^(\S+) (\S+) (\S+) status=(\d+) upstream=(.*) upstream_status=(.*) request_time=\S+$/.exec(
    line,
  );
  if (!match) throw new Error(`not an access log line: ${line}`);
  return {
    at: Math.round(Number(match[1]) * 1000),
    method: match[2] as string,
    uri: match[3] as string,
    status: Number(match[4]),
    upstreams: (match[5] as string).split(', '),
    upstreamStatuses: (match[6] as string).split(', '),
  };
}
