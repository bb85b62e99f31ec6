import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { passOn } from '../../support/service-proxy.ts';

/**
 * A loopback pass-through to the service that, while `holding`, keeps the requests `picks` chooses
 * waiting until `release()`, or `maxHoldMs` at most (under the app's 10 s service timeout, so a slow
 * test never turns a hold into a failure): a copy of the app can be caught in the middle of a write
 * when it is told to stop. Every request is passed on unchanged, once.
 */
export interface ServiceGate {
  url: string;
  holding: boolean;
  /** Requests waiting now. */
  readonly held: number;
  /** Requests held since the start (waiting or passed on). */
  readonly heldEver: number;
  /** Requests that were held and then passed on. */
  readonly released: number;
  /** Stops holding and passes on every waiting request. */
  release(): void;
  stop(): Promise<void>;
}

export async function startServiceGate(
  target: string,
  picks: (method: string, url: string) => boolean,
  maxHoldMs = 6000,
): Promise<ServiceGate> {
  let waiting: (() => void)[] = [];
  let released = 0;
  let heldEver = 0;
  const server: Server = createServer((incoming, outgoing) => {
    // A client that goes away mid-request (a process killed by a test) ends only its request.
    handle(incoming, outgoing).catch(() => outgoing.destroy());
  });
  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    if (gate.holding && picks(incoming.method ?? '', incoming.url ?? '')) {
      heldEver++;
      await new Promise<void>((resolve) => {
        const pass = () => {
          clearTimeout(timer);
          waiting = waiting.filter((other) => other !== pass);
          resolve();
        };
        const timer = setTimeout(pass, maxHoldMs);
        waiting.push(pass);
      });
      released++;
    }
    try {
      await passOn(target, incoming, chunks, outgoing);
    } catch {
      outgoing.destroy();
    }
  }
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const gate: ServiceGate = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holding: false,
    get held() {
      return waiting.length;
    },
    get heldEver() {
      return heldEver;
    },
    get released() {
      return released;
    },
    release: () => {
      gate.holding = false;
      const all = waiting;
      waiting = [];
      for (const pass of all) pass();
    },
    stop: () =>
      new Promise((done) => {
        gate.release();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
  return gate;
}
