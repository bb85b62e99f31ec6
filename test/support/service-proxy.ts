import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as undiciRequest } from 'undici';

/**
 * A loopback proxy in front of the real service that can hold and/or answer 503 to the requests
 * it picks (the service itself never sees a failed one); every other request passes unchanged.
 * test/support/fault-server.ts plays a whole scripted server instead, for the client's own tests.
 */
export interface ServiceProxy {
  url: string;
  /** Answers each picked request with 503 (after any delay) instead of passing it on. */
  fail: boolean;
  /** Holds each picked request this long first (a slow service). */
  delayMs: number;
  /** How many picked requests arrived. */
  seen: number;
  stop(): Promise<void>;
}

const UNAVAILABLE = {
  type: 'about:blank',
  title: 'Unavailable',
  status: 503,
  code: 'unavailable',
  detail: 'down',
};

/** Passes a request (its body already read as `chunks`) on to `target`, and its answer back. */
export async function passOn(
  target: string,
  incoming: IncomingMessage,
  chunks: Buffer[],
  outgoing: ServerResponse,
): Promise<void> {
  const headers = { ...incoming.headers };
  delete headers.host;
  delete headers.connection;
  const answer = await undiciRequest(`${target}${incoming.url}`, {
    method: incoming.method as 'GET',
    headers,
    body: chunks.length ? Buffer.concat(chunks) : undefined,
  });
  const body = Buffer.from(await answer.body.arrayBuffer());
  const passed: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers))
    if (typeof value === 'string' && !['transfer-encoding', 'connection', 'keep-alive'].includes(name))
      passed[name] = value;
  outgoing.writeHead(answer.statusCode, passed);
  outgoing.end(body);
}

/** Starts a proxy to `target` whose faults apply to the requests `picks` (method, url) chooses. */
export async function startServiceProxy(
  target: string,
  picks: (method: string, url: string) => boolean,
): Promise<ServiceProxy> {
  const proxy: ServiceProxy = { url: '', fail: false, delayMs: 0, seen: 0, stop: async () => undefined };
  const server: Server = createServer((incoming, outgoing) => {
    // A client that goes away mid-request (a process killed by a test) ends only its request.
    handle(incoming, outgoing).catch(() => outgoing.destroy());
  });
  async function handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    if (picks(incoming.method ?? '', incoming.url ?? '')) {
      proxy.seen++;
      if (proxy.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, proxy.delayMs));
      if (proxy.fail) {
        outgoing.writeHead(503, { 'content-type': 'application/problem+json' });
        outgoing.end(JSON.stringify(UNAVAILABLE));
        return;
      }
    }
    await passOn(target, incoming, chunks, outgoing);
  }
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = () =>
    new Promise((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return proxy;
}

/** A tender search a search-holding proxy saw: its query, the key it came with, and whether the app gave up on it. */
export interface SeenSearch {
  query: URLSearchParams;
  authorization: string;
  abandoned: boolean;
}

export interface SearchHoldingProxy {
  url: string;
  /** Every tender search (`GET /v1/tenders?…`) that arrived, in order. */
  searches: SeenSearch[];
  /** While true, tender searches are never answered: the app must give up on them by itself. */
  hold: boolean;
  stop(): Promise<void>;
}

/**
 * A loopback proxy to `target` that records every tender search and holds them while `hold`;
 * everything else passes on, after `beforePassing(url)` when given (to hold a request a while).
 */
export async function startSearchHoldingProxy(
  target: string,
  beforePassing: (url: string) => Promise<void> = async () => undefined,
): Promise<SearchHoldingProxy> {
  const proxy: SearchHoldingProxy = { url: '', searches: [], hold: false, stop: async () => undefined };
  const server: Server = createServer((incoming, outgoing) => {
    const url = incoming.url ?? '';
    if (url.startsWith('/v1/tenders?')) {
      const seen: SeenSearch = {
        query: new URL(url, target).searchParams,
        authorization: String(incoming.headers.authorization),
        abandoned: false,
      };
      proxy.searches.push(seen);
      if (proxy.hold) {
        incoming.socket.once('close', () => {
          seen.abandoned = true;
        });
        return;
      }
    }
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      await beforePassing(url);
      passOn(target, incoming, chunks, outgoing).catch(() => outgoing.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = async () => {
    proxy.hold = false;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
