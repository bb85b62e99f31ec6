import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../src/client/errors.ts';
import { ProcurementClient } from '../../src/client/procurement-client.ts';

/**
 * The client's deadline, short (a timer of its own) and long (undici's timers, which tick about
 * once a second): a server that never answers, one that sends its headers and then falls silent,
 * and one that trickles its body past the deadline all end in a TimeoutError, long before the
 * server would have finished. The tender id asked for says how the server behaves.
 */
const BEHAVIOURS: Record<string, (response: ServerResponse) => void> = {
  silent: () => undefined,
  'silent-after-headers': (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"data":');
  },
  // A byte every 100 ms for 20 s: never silent for a whole deadline, yet far too slow.
  trickle: (response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    trickled = 0;
    const drip = setInterval(() => {
      if (response.destroyed || trickled >= TRICKLE_BYTES) return clearInterval(drip);
      trickled++;
      response.write(' ');
    }, 100);
  },
};
/** What the trickling server sends in all, and has sent so far. */
const TRICKLE_BYTES = 200;
let trickled = 0;
const open = new Set<ServerResponse>();
const server: Server = createServer((request: IncomingMessage, response) => {
  open.add(response);
  response.on('close', () => open.delete(response));
  BEHAVIOURS[(request.url ?? '').split('/').pop() ?? '']?.(response);
});
let baseUrl = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const response of open) response.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/**
 * How each behaviour's call ended, after how long (ms), and whether the server was still sending
 * then (`unfinished`), all at once, with this deadline.
 */
async function callEach(
  timeoutMs: number,
): Promise<Record<string, { error: unknown; ms: number; unfinished: boolean }>> {
  const client = new ProcurementClient({
    baseUrl,
    apiKey: 'pis_deadline_0123456789abcdefghijklmnopqrst',
    timeoutMs,
    maxRetries: 0,
  });
  const outcomes = await Promise.all(
    Object.keys(BEHAVIOURS).map(async (behaviour) => {
      const started = performance.now();
      const error = await client.tenders.get(behaviour).then(
        () => null,
        (failure: unknown) => failure,
      );
      return [
        behaviour,
        { error, ms: performance.now() - started, unfinished: trickled < TRICKLE_BYTES },
      ] as const;
    }),
  );
  await client.close();
  return Object.fromEntries(outcomes);
}

describe('the client’s deadline', () => {
  // Each call ends in a TimeoutError (a silent server never ends one) while the trickle is still
  // sending, and not before its deadline. No upper bound in time: a loaded machine is slower.
  it('a short one (300 ms) ends every slow answer, not before its deadline', async () => {
    for (const [behaviour, { error, ms, unfinished }] of Object.entries(await callEach(300))) {
      expect(error, behaviour).toBeInstanceOf(TimeoutError);
      expect(ms, behaviour).toBeGreaterThanOrEqual(290);
      expect(unfinished, behaviour).toBe(true);
    }
  });

  it('a long one (3 s) ends every slow answer, not before its deadline', async () => {
    for (const [behaviour, { error, ms, unfinished }] of Object.entries(await callEach(3000))) {
      expect(error, behaviour).toBeInstanceOf(TimeoutError);
      expect(ms, behaviour).toBeGreaterThanOrEqual(2990);
      expect(unfinished, behaviour).toBe(true);
    }
  });
});
