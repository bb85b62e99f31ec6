import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { nginxConfig } from '../../src/deploy/nginx-config.ts';
import { parseAccessLine, type RunningNginx, startNginx } from './support/nginx.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

describe('the generated nginx configuration', () => {
  const config = nginxConfig({ upstreams: ['127.0.0.1:3001', '127.0.0.1:3002'], listen: '127.0.0.1:8080' });

  it('spreads requests over every copy, on keep-alive connections, listening where asked', () => {
    expect(config).toContain('server 127.0.0.1:3001 max_fails=1 fail_timeout=2s;');
    expect(config).toContain('server 127.0.0.1:3002 max_fails=1 fail_timeout=2s;');
    expect(config).toContain('listen 127.0.0.1:8080;');
    expect(config).toMatch(/keepalive \d+;/);
    expect(config).toContain('proxy_http_version 1.1;');
    expect(config).toContain('proxy_set_header Connection "";');
    // nginx closes an idle connection before Node's 5 s keep-alive timeout would.
    const keepalive = Number(/keepalive_timeout (\d+)s;/.exec(config)?.[1]);
    expect(keepalive).toBeGreaterThan(0);
    expect(keepalive).toBeLessThan(5);
  });

  it('retries a request on the next copy only within Slack’s 3 s, never a slow answer', () => {
    expect(config).toContain('proxy_next_upstream error timeout non_idempotent;');
    const retryWindow = Number(/proxy_next_upstream_timeout (\d+)s;/.exec(config)?.[1]);
    const readTimeout = Number(/proxy_read_timeout (\d+)s;/.exec(config)?.[1]);
    expect(retryWindow).toBeLessThanOrEqual(3);
    expect(readTimeout).toBeGreaterThan(retryWindow);
  });

  it('keeps every file it writes under nginx’s prefix (no absolute path), so it runs as any user', () => {
    const paths = [...config.matchAll(/^\s*(pid|error_log|access_log|\w+_temp_path)\s+(\S+)/gm)].map(
      (match) => match[2],
    );
    expect(paths).toHaveLength(8);
    for (const path of paths) expect(path?.startsWith('/'), path).toBe(false);
  });

  it('refuses an address without a port, and no copies at all', () => {
    expect(() => nginxConfig({ upstreams: ['127.0.0.1'], listen: '127.0.0.1:80' })).toThrow(
      'each copy of the app must be host:port, not "127.0.0.1"',
    );
    expect(() => nginxConfig({ upstreams: ['127.0.0.1:1'], listen: ':80' })).toThrow('host:port');
    expect(() => nginxConfig({ upstreams: ['127.0.0.1:70000'], listen: '127.0.0.1:80' })).toThrow();
    expect(() => nginxConfig({ upstreams: [], listen: '127.0.0.1:80' })).toThrow('at least one copy');
  });

  it('is what the command prints for the README', async () => {
    const printed = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/deploy/nginx-config.ts',
        '127.0.0.1:3001',
        '127.0.0.1:3002',
        '--listen',
        '127.0.0.1:8080',
      ],
      { cwd: ROOT },
    );
    expect(printed.stdout).toBe(config);
    const refused = await run(
      process.execPath,
      ['--import', 'tsx', 'src/deploy/nginx-config.ts', 'nowhere'],
      {
        cwd: ROOT,
      },
    ).catch((error: { code: number; stderr: string }) => error);
    expect(refused).toMatchObject({ code: 2 });
    expect((refused as { stderr: string }).stderr).toContain('Usage:');
  });
});

describe('Debian’s nginx running the configuration', () => {
  const servers: Server[] = [];
  let nginx: RunningNginx | undefined;

  afterAll(async () => {
    await nginx?.stop();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  /**
   * A stand-in for a copy of the app: answers every POST with its name; with `cut`, drops the
   * connection of every request it is sent instead (to nginx, a copy closing a keep-alive
   * connection just as a request is written into it).
   */
  async function copy(name: string, cut = false): Promise<{ server: Server; address: string }> {
    const server = createServer((incoming, outgoing) => {
      if (cut) {
        incoming.socket.destroy();
        return;
      }
      incoming.resume();
      incoming.on('end', () => {
        outgoing.writeHead(200, { 'content-type': 'text/plain' });
        outgoing.end(name);
      });
    });
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    servers.push(server);
    return { server, address: `127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  const post = async (url: string) => {
    const answer = await request(`${url}/slack/events`, { method: 'POST', body: 'payload=x' });
    return { status: answer.statusCode, text: await answer.body.text() };
  };

  it('serves POSTs from both copies, and from the other one alone once a copy stops listening', async () => {
    const first = await copy('first');
    const second = await copy('second');
    nginx = await startNginx([first.address, second.address]);
    const before = await Promise.all(Array.from({ length: 20 }, () => post((nginx as RunningNginx).url)));
    expect(new Set(before.map((answer) => answer.status))).toEqual(new Set([200]));
    expect(new Set(before.map((answer) => answer.text))).toEqual(new Set(['first', 'second']));

    // The first copy stops: its port refuses connections, and nginx sends each POST to the second.
    first.server.closeAllConnections();
    await new Promise((done) => first.server.close(done));
    const after = await Promise.all(Array.from({ length: 20 }, () => post((nginx as RunningNginx).url)));
    expect(after).toEqual(Array.from({ length: 20 }, () => ({ status: 200, text: 'second' })));

    const lines = nginx.accessLog().map(parseAccessLine);
    expect(lines).toHaveLength(40);
    expect(lines.every((line) => line.method === 'POST' && line.status === 200)).toBe(true);
    // Any refused first try shows as two upstreams, the second one answering.
    for (const line of lines.slice(20)) expect(line.upstreams.at(-1)).toBe(second.address);
    await nginx.stop();
    nginx = undefined;
  });

  it('never forwards /metrics (the copies’ figures are for the operator’s network), however it is spelled', async () => {
    const only = await copy('only');
    nginx = await startNginx([only.address]);
    for (const path of ['/metrics', '//metrics', '/%6detrics', '/metrics?format=text', '/./metrics']) {
      const answer = await request(`${nginx.url}${path}`);
      await answer.body.text();
      expect(answer.statusCode, path).toBe(404);
    }
    // Everything else still reaches the copies.
    expect(await post(nginx.url)).toEqual({ status: 200, text: 'only' });
    await nginx.stop();
    nginx = undefined;
  });

  it('sends a POST cut off after it was sent to the other copy (the app refuses it there if it was read)', async () => {
    const cutting = await copy('cutting', true);
    const healthy = await copy('healthy');
    nginx = await startNginx([cutting.address, healthy.address]);
    const answers: { status: number; text: string }[] = [];
    for (let index = 0; index < 6; index++) answers.push(await post(nginx.url));
    expect(answers).toEqual(Array.from({ length: 6 }, () => ({ status: 200, text: 'healthy' })));
    const retried = nginx
      .accessLog()
      .map(parseAccessLine)
      .filter((line) => line.upstreams.length === 2);
    // Tried on the cutting copy first (then out of the rotation for 2 s), answered by the other.
    expect(retried.length).toBeGreaterThan(0);
    for (const line of retried) {
      expect(line.upstreams).toEqual([cutting.address, healthy.address]);
      expect(line.upstreamStatuses).toEqual(['502', '200']);
    }
  });
});
