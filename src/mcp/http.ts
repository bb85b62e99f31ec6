import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from 'pino';
import { Agent } from 'undici';
import { ProcurementClient } from '../client/procurement-client.ts';
import { cutText } from '../shared/cut-text.ts';
import { bodyWithin, inviteBodiesWithin } from '../shared/request-body.ts';
import { limitSlowClients, SLOW_CLIENT_LIMITS, type SlowClientLimits } from '../shared/slow-clients.ts';
import { CreationKeys } from './creation-keys.ts';
import { createMcpLogger } from './logger.ts';
import { createTenderbotMcpServer } from './server.ts';

export const MCP_PATH = '/mcp';
export const DEFAULT_MCP_PORT = 4020;
/** The service's own limits (src/service/http/app.ts and the default key rate), applied here too. */
export const MCP_BODY_LIMIT_BYTES = 1024 * 1024;
export const DEFAULT_MCP_RATE_PER_SECOND = 50;

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]', '::1'];

export interface McpHttpOptions {
  /** The service's base URL, without /v1. */
  serviceUrl: string;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * Origins (scheme://host[:port]) whose browser pages may call the endpoint; a request with any
   * other Origin is refused (403). Requests without an Origin (desktop and server clients) pass.
   */
  allowedOrigins?: readonly string[];
  /**
   * Host names (without port) the Host header may name, against DNS rebinding. By default the
   * loopback names when bound to loopback; otherwise unchecked unless given.
   */
  allowedHosts?: readonly string[];
  /** Requests a second per key; the service counts each tool call against the key too. */
  ratePerSecond?: number;
  bodyLimitBytes?: number;
  logger?: Logger;
  /** How long a request may take to arrive (the service's and the bot's limits by default). */
  slowClientLimits?: SlowClientLimits;
}

export interface RunningMcpHttp {
  /** The endpoint, e.g. http://127.0.0.1:4020/mcp. */
  url: string;
  close(): Promise<void>;
}

/**
 * The MCP server over Streamable HTTP at /mcp, stateless: each request carries the caller's own
 * service key as a bearer token and gets a server and a client of its own with that key, gone
 * when the answer is sent. The key is passed through to the service, never stored or logged.
 */
export async function startMcpHttp(options: McpHttpOptions): Promise<RunningMcpHttp> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? createMcpLogger('info');
  const allowedOrigins = new Set(options.allowedOrigins ?? []);
  const allowedHosts =
    options.allowedHosts && options.allowedHosts.length > 0
      ? new Set(options.allowedHosts.map((name) => name.toLowerCase()))
      : LOOPBACK_HOSTS.includes(host)
        ? new Set(LOOPBACK_HOSTS)
        : null;
  const limiter = new KeyRateLimiter(options.ratePerSecond ?? DEFAULT_MCP_RATE_PER_SECOND);
  const creationKeys = new CreationKeys();
  // One pool of connections to the service for every caller; each caller's client closes itself.
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const bodyLimit = options.bodyLimitBytes ?? MCP_BODY_LIMIT_BYTES;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== MCP_PATH && path !== `${MCP_PATH}/`)
      return refuse(response, 404, `Nothing here: the MCP endpoint is ${MCP_PATH}.`);
    const hostName = hostNameOf(request.headers.host);
    if (allowedHosts && (hostName === null || !allowedHosts.has(hostName)))
      return refuse(response, 403, 'The Host header names a host this endpoint does not serve.');
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!allowedOrigins.has(origin))
        return refuse(response, 403, `Requests from the origin ${cutText(origin, 200)} are not allowed.`);
      // A page of an allowed origin reads the answers (CORS); its preflight carries no key.
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Vary', 'Origin');
      response.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, WWW-Authenticate, Retry-After');
      if (request.method === 'OPTIONS') {
        response.setHeader('Access-Control-Allow-Methods', 'POST');
        response.setHeader(
          'Access-Control-Allow-Headers',
          'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-Id',
        );
        response.setHeader('Access-Control-Max-Age', '600');
        response.statusCode = 204;
        response.end();
        return;
      }
    }
    const key = bearerOf(request.headers.authorization);
    if (!key) {
      response.setHeader('WWW-Authenticate', 'Bearer realm="tenderbot-mcp"');
      return refuse(
        response,
        401,
        'Send your own Procurement Intelligence Service API key in the header "Authorization: Bearer <key>".',
      );
    }
    const wait = limiter.take(key, Date.now());
    if (wait > 0)
      return refuseTooFast(response, wait, `This key may make ${limiter.perSecond} requests a second here`);
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST');
      return refuse(response, 405, 'This endpoint is stateless: send each message as a POST.');
    }
    const bytes = await bodyWithin(request, bodyLimit);
    if (bytes === null) return refuse(response, 413, `A request may be at most ${bodyLimit} bytes.`);
    const body = bytes.toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return refuse(response, 400, 'The request is not JSON: send one JSON-RPC message as the body.');
    }
    // A batch (older MCP clients may send one) counts each of its messages against the key's
    // limit: 100 tool calls in one POST are 100 calls.
    if (Array.isArray(message)) {
      for (let more = 1; more < message.length; more++) {
        const batchWait = limiter.take(key, Date.now());
        if (batchWait > 0)
          return refuseTooFast(
            response,
            batchWait,
            `This key may make ${limiter.perSecond} requests a second here, a batch's messages each counted`,
          );
      }
    }

    const client = new ProcurementClient({
      baseUrl: options.serviceUrl,
      apiKey: key,
      dispatcher,
      // An assistant waits on each call: a long Retry-After is said, not waited out.
      retryDelay: { maxRetryAfterMs: 5000 },
    });
    const server = createTenderbotMcpServer({ client, callerKey: key, creationKeys, logger });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: bodyLimit,
    });
    response.on('close', () => {
      void transport.close();
      void server.close();
      void client.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, message);
  }

  const server = createServer((request, response) => {
    const started = Date.now();
    response.on('finish', () =>
      logger.info(
        { method: request.method, status: response.statusCode, ms: Date.now() - started },
        'mcp request',
      ),
    );
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'mcp request failed');
      if (!response.headersSent) refuse(response, 500, 'The MCP endpoint failed; try again.');
      else response.end();
    });
  });
  // Longer than a client keeps an idle connection for (undici: 4 s; proxies: about 60 s), so a
  // client rarely sends a request down a connection this server is closing (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  // It faces the network as the service does: a request trickling in is cut, not held.
  limitSlowClients(server, options.slowClientLimits ?? SLOW_CLIENT_LIMITS);
  inviteBodiesWithin(server, bodyLimit);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_MCP_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await dispatcher.close();
    },
  };
}

/** A JSON-RPC error answer with an HTTP status, as MCP clients read refusals. */
/** A 429 with Retry-After: `rate` says the limit, and the sentence ends with when to retry. */
function refuseTooFast(response: ServerResponse, wait: number, rate: string): void {
  response.setHeader('Retry-After', String(wait));
  refuse(response, 429, `${rate}; retry after ${wait} s.`);
}

function refuse(response: ServerResponse, status: number, message: string): void {
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json');
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const BEARER = /^Bearer +(\S+)\s*$/i;
function bearerOf(header: string | undefined): string | null {
  return header ? (BEARER.exec(header)?.[1] ?? null) : null;
}

/** The Host header's host name, lower case, without its port (`[::1]` keeps its brackets). */
function hostNameOf(header: string | undefined): string | null {
  if (!header) return null;
  try {
    return new URL(`http://${header}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * A fixed one-second window per key, as the service counts (every request counts). Keys are
 * remembered only as an HMAC under a secret of this process, and only for their window.
 */
class KeyRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private readonly secret = randomBytes(32);

  constructor(readonly perSecond: number) {}

  /** 0 when the request may go on; otherwise the seconds to wait. */
  take(key: string, nowMs: number): number {
    const id = createHmac('sha256', this.secret).update(key).digest('base64url');
    const start = nowMs - (nowMs % 1000);
    let window = this.windows.get(id);
    if (!window || window.start !== start) {
      this.windows.delete(id);
      for (const [other, entry] of this.windows) {
        if (entry.start >= start && this.windows.size < 10_000) break;
        this.windows.delete(other);
      }
      window = { start, count: 0 };
      this.windows.set(id, window);
    }
    window.count++;
    return window.count <= this.perSecond ? 0 : 1;
  }
}
