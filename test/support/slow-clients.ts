import { connect, type Socket } from 'node:net';
import type { SlowClientLimits } from '../../src/shared/slow-clients.ts';

/** Short limits for tests, so a slow client is cut in seconds; the check runs often to match. */
export const TEST_SLOW_CLIENT_LIMITS: SlowClientLimits = {
  headersMs: 2_000,
  requestMs: 3_000,
  checkEveryMs: 100,
};

/** A request that never ends: its first bytes, then one more byte per tick. */
export interface SlowRequest {
  opening: string;
  /** The byte sent at every tick; it keeps the request valid and unfinished. */
  trickle: string;
}

/** Headers that never end: one more letter of a header's value per tick. */
export function tricklingHeaders(path: string): SlowRequest {
  return { opening: `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `, trickle: 'a' };
}

/** Headers sent whole, then a body that never reaches its Content-Length: one byte per tick. */
export function tricklingBody(path: string, headers: Record<string, string> = {}): SlowRequest {
  const lines = Object.entries({ 'Content-Type': 'application/json', ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  return {
    opening: `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n${lines.join('')}\r\n{"x":"`,
    trickle: 'a',
  };
}

export interface SlowClientsRun {
  /** Connections the server closed while they were still sending. */
  closedByServer: number;
  /** Connections still open once they had sent `maxTicks` bytes (then closed by the test). */
  outlasted: number;
  /** Connections the server refused outright. */
  neverConnected: number;
  /** What the server wrote to each connection before closing it. */
  answers: string[];
  /** Connections open (connected, not closed) right now: read it while the run goes on. */
  open(): number;
}

/**
 * Opens one connection per request in `requests` to `port` on loopback; each sends its opening,
 * then one byte every `tickMs` (a byte a second, sped up), as a slow client does, never finishing,
 * and keeps sending after the server ends its side (a slow client ignores that too). `started`
 * resolves once every connection has sent its opening; `finished` once every connection is closed,
 * by the server or after `maxTicks` bytes by the test.
 */
export function startSlowClients(
  port: number,
  requests: readonly SlowRequest[],
  options: { tickMs: number; maxTicks: number },
): { run: SlowClientsRun; started: Promise<void>; finished: Promise<SlowClientsRun> } {
  let openCount = 0;
  const run: SlowClientsRun = {
    closedByServer: 0,
    outlasted: 0,
    neverConnected: 0,
    answers: [],
    open: () => openCount,
  };
  const openings: Promise<void>[] = [];
  const closings = requests.map(
    (slow) =>
      new Promise<void>((closed) => {
        let received = '';
        let ticks = 0;
        let closedByTest = false;
        let connected = false;
        let timer: NodeJS.Timeout | undefined;
        const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        openings.push(
          new Promise<void>((opened) => {
            socket.once('connect', () => {
              connected = true;
              openCount++;
              socket.write(slow.opening, () => opened());
              timer = setInterval(() => {
                if (ticks >= options.maxTicks) {
                  closedByTest = true;
                  socket.destroy();
                  return;
                }
                ticks++;
                if (!socket.destroyed) socket.write(slow.trickle);
              }, options.tickMs);
            });
            socket.once('close', () => opened());
          }),
        );
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          received += chunk;
        });
        // A write after the server closed fails; the close that follows is what is counted.
        socket.on('error', () => undefined);
        socket.once('close', () => {
          clearInterval(timer);
          if (!connected) {
            run.neverConnected++;
          } else {
            openCount--;
            if (closedByTest) run.outlasted++;
            else run.closedByServer++;
          }
          run.answers.push(received);
          closed();
        });
      }),
  );
  return {
    run,
    started: Promise.all(openings).then(() => undefined),
    finished: Promise.all(closings).then(() => run),
  };
}

/** A real request sent while slow clients were held: its status, and how many were open as it was sent. */
export interface RealAnswer {
  status: number;
  slowOpen: number;
}

/**
 * Sends `requests` (each answering its status) one after another, again and again, for as long
 * as `slow`'s connections last, and gives back the run with every real answer.
 */
export async function realRequestsWhileSlow(
  slow: ReturnType<typeof startSlowClients>,
  requests: readonly (() => Promise<number>)[],
): Promise<{ run: SlowClientsRun; real: RealAnswer[] }> {
  await slow.started;
  let finished = false;
  const done = slow.finished.then((run) => {
    finished = true;
    return run;
  });
  const real: RealAnswer[] = [];
  while (!finished) {
    for (const send of requests) {
      const slowOpen = slow.run.open();
      real.push({ status: await send(), slowOpen });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { run: await done, real };
}
