import type { Server } from 'node:http';

/**
 * How long an HTTP server facing the network waits for a request to arrive. A client that sends
 * its request a byte a second (slowloris) holds a connection, and a socket, for as long as the
 * server lets it; two hundred of them would hold two hundred. These bound every request's
 * arrival, whatever its pace, while a request that has arrived may take as long as it needs.
 */
export interface SlowClientLimits {
  /** The request line and headers must have arrived within this, counted from their first byte. */
  headersMs: number;
  /** The whole request, body included, must have arrived within this: a body trickling in is cut. */
  requestMs: number;
  /** How often Node looks for requests past these limits; its default, 30 s, would add up to that. */
  checkEveryMs: number;
}

/**
 * Slack, a browser and the client send a request in well under a second; 10 s for the headers
 * and 30 s for the whole (at most 1 MiB) leave room for a slow network and none for a trickle.
 */
export const SLOW_CLIENT_LIMITS: SlowClientLimits = {
  headersMs: 10_000,
  requestMs: 30_000,
  checkEveryMs: 1_000,
};

/**
 * Applies `limits` to `server`; call it before the server listens (Node starts its check when it
 * starts listening). A request past a limit gets Node's 408, or the server's `clientError`
 * answer, and its connection is closed.
 */
export function limitSlowClients(server: Server, limits: SlowClientLimits = SLOW_CLIENT_LIMITS): void {
  if (server.listening) throw new Error('limitSlowClients must be called before the server listens');
  server.headersTimeout = limits.headersMs;
  server.requestTimeout = Math.max(limits.requestMs, limits.headersMs);
  // A property of every http.Server at run time, read when it starts listening; @types/node only
  // knows it as an option of createServer.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    limits.checkEveryMs;
}
