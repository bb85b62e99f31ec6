import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the fault server does with one request. */
export type Fault =
  | { status: number; headers?: Record<string, string>; body?: unknown; rawBody?: string }
  /** Destroys the connection without an answer. */
  | 'reset'
  /** Never answers (until the server stops). */
  | 'hang';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FaultServer {
  baseUrl: string;
  seen: SeenRequest[];
  /** Faults to play, one per request, in order; the last one repeats. */
  play(faults: Fault[]): void;
  stop(): Promise<void>;
}

/** A loopback HTTP server that misbehaves on cue, for testing the client's retries. */
export async function startFaultServer(): Promise<FaultServer> {
  let script: Fault[] = [{ status: 200, body: {} }];
  let index = 0;
  const seen: SeenRequest[] = [];
  const server: Server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
    const fault = script[Math.min(index++, script.length - 1)] as Fault;
    if (fault === 'reset') {
      request.socket.destroy();
      return;
    }
    if (fault === 'hang') return;
    const json = fault.rawBody ?? (fault.body === undefined ? '' : JSON.stringify(fault.body));
    response.writeHead(fault.status, {
      'content-type': fault.status >= 400 ? 'application/problem+json' : 'application/json',
      ...fault.headers,
    });
    response.end(json);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    play(faults) {
      script = faults;
      index = 0;
      seen.length = 0;
    },
    stop: () =>
      new Promise((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
