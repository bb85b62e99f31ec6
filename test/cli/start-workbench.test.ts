import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningWorkbench, startWorkbench } from '../../src/cli/start-workbench.ts';

/** Linux's table of listening TCP sockets: each one's local address (hex, as the kernel writes it) by port. */
function listeningAddresses(): Map<number, string[]> {
  const byPort = new Map<number, string[]>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [address, portHex] = local.split(':');
      const port = Number.parseInt(portHex ?? '', 16);
      byPort.set(port, [...(byPort.get(port) ?? []), address ?? '']);
    }
  }
  return byPort;
}

/** 127.0.0.1 as /proc/net/tcp writes it (little-endian), or ::1 as /proc/net/tcp6 does. */
const LOOPBACK = new Set(['0100007F', '00000000000000000000000001000000']);

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-start-workbench-'));
let workbench: RunningWorkbench;

beforeAll(async () => {
  workbench = await startWorkbench({ dataDir: dir, port: 0, servicePort: 0, botPort: 0, demo: 50 });
}, 60_000);

afterAll(async () => {
  await workbench?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm start (the workbench)', () => {
  it('listens on loopback only: the page, the service, MCP and the bot with its /metrics', () => {
    const ports = [workbench.url, workbench.serviceUrl, workbench.mcpUrl, workbench.slack.appUrl ?? ''].map(
      (address) => Number(new URL(address).port),
    );
    expect(ports.every((port) => port > 0)).toBe(true);
    const listening = listeningAddresses();
    for (const port of ports) {
      const addresses = listening.get(port) ?? [];
      expect(addresses.length, `port ${port} is listening`).toBeGreaterThan(0);
      for (const address of addresses) expect(LOOPBACK.has(address), `port ${port} on ${address}`).toBe(true);
    }
  });
});
