import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Logger } from 'pino';
import { bodyWithin, inviteBodiesWithin } from '../../shared/request-body.ts';
import { limitSlowClients, type SlowClientLimits } from '../../shared/slow-clients.ts';
import { type BotMetrics, type RequestKind, requestKind } from '../metrics/bot-metrics.ts';
import { verifySlackSignature } from '../security/slack-signature.ts';
import type { BotStore } from '../storage/bot-store.ts';
import type { RequestToRemember } from '../storage/seen-requests.ts';
import type { HandOff, HandOffCommand } from './hand-off.ts';
import { parseSlackBody } from './slack-body.ts';

/** Slack's own window: a signature older (or, here, newer) than this is refused. */
export const SIGNATURE_WINDOW_SECONDS = 300;
/** Slack's payloads are a few kilobytes; a modal's state at most tens. Anything above is refused. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
/** Slack retries an event for about an hour (three tries); an event id is remembered that long. */
const EVENT_MEMORY_MS = 60 * 60 * 1000;
/** Bolt's HTTPReceiver answers 404 to a request nobody acknowledged after 3001 ms; so does this one. */
const UNACKNOWLEDGED_MS = 3001;
/** One decoder for every request: `decode` without `stream` keeps no state between calls. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const FORM = 'application/x-www-form-urlencoded';

/** The install's web pages (OAuth mode): answers its own paths, false for any other request. */
export interface InstallRoutes {
  handle(request: IncomingMessage, response: ServerResponse): Promise<boolean>;
}

export interface GuardedReceiverOptions {
  signingSecret: string;
  /** `ping` is what /healthz asks: does the database answer. */
  store: Pick<BotStore, 'rememberRequest' | 'ping'>;
  /** OAuth mode: GET /slack/install and /slack/oauth_redirect. */
  install?: InstallRoutes;
  logger: Logger;
  /**
   * Slash commands that an answer worker answers (ANSWER_WORKERS), offered with their signed
   * request to remember in the same write (see HandOff): 'handed' is acknowledged at once without
   * running the app here; 'declined', or a failure to store it, leaves the command to this
   * process's app as usual, its request remembered then.
   */
  handOff?: HandOffCommand;
  endpoint?: string;
  /** The address to listen on (every interface when absent). */
  host?: string;
  bodyLimitBytes?: number;
  clock?: () => Date;
  /** How long a request may take to arrive; SLOW_CLIENT_LIMITS when absent (tests shorten them). */
  slowClientLimits?: SlowClientLimits;
  /**
   * The app's metrics: the receiver times acknowledgements and answers, and serves them all as
   * GET /metrics (no authentication: for the operator's network, like /healthz).
   */
  metrics?: BotMetrics;
}

/**
 * Receives Slack's HTTP requests in front of Bolt. Signatures are checked by the rules of Bolt's
 * `verifySlackRequest` (as its HTTPReceiver does; see verifySlackSignature), and then more: a timestamp more than five
 * minutes ahead is refused, a signature seen before is refused (kept in the bot's store, so every
 * copy of the app shares it), a body that is not one of Slack's shapes gets 400 instead of reaching
 * Bolt, an event Slack sends again (`X-Slack-Retry-Num`, same event id) is acknowledged without
 * running twice. Nothing a request holds can end the process: every failure here is an answer.
 */
export class GuardedReceiver implements Receiver {
  private app: App | null = null;
  private server: Server | null = null;
  private readonly endpoint: string;
  private readonly bodyLimit: number;
  private readonly clock: () => Date;

  constructor(private readonly options: GuardedReceiverOptions) {
    if (!options.signingSecret) throw new Error('GuardedReceiver needs the signing secret');
    this.endpoint = options.endpoint ?? '/slack/events';
    this.bodyLimit = options.bodyLimitBytes ?? BODY_LIMIT_BYTES;
    this.clock = options.clock ?? (() => new Date());
  }

  init(app: App): void {
    this.app = app;
  }

  /** Listens on `port` (0 picks a free one) and resolves with the server. */
  async start(port: number): Promise<Server> {
    if (this.server) throw new Error('the receiver is already started');
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error) => {
        this.options.logger.error({ err: error }, 'a request failed in the receiver');
        if (!response.headersSent) answer(response, 500, 'Tenderbot could not handle this request.');
        else response.end();
      });
    });
    // A client that sends headers slowly or never finishes its body is cut off.
    limitSlowClients(server, this.options.slowClientLimits);
    inviteBodiesWithin(server, this.bodyLimit);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.options.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeIdleConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get port(): number | null {
    const address = this.server?.address();
    return typeof address === 'object' && address ? (address as AddressInfo).port : null;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const startedAt = performance.now();
    const path = (request.url ?? '/').split('?')[0];
    if (path === '/healthz' && request.method === 'GET') {
      await this.health(response);
      return;
    }
    if (path === '/metrics' && request.method === 'GET' && this.options.metrics) {
      await this.metrics(this.options.metrics, response);
      return;
    }
    // The install pages are for people's browsers: no Slack signature, their own checks (the state).
    if (this.options.install && (await this.options.install.handle(request, response))) return;
    if (path !== this.endpoint || request.method !== 'POST') {
      answer(response, 404, 'Not found.');
      return;
    }
    const raw = await bodyWithin(request, this.bodyLimit);
    if (raw === null) {
      this.options.logger.warn({ limit: this.bodyLimit }, 'refused a request body over the limit');
      answer(response, 413, `The body is larger than ${this.bodyLimit} bytes.`);
      return;
    }
    await this.handleEvent(request, response, raw, startedAt);
  }

  /** Every metric of this copy in Prometheus' text format: counts and timings, never a secret or a team. */
  private async metrics(metrics: BotMetrics, response: ServerResponse): Promise<void> {
    const { contentType, text } = await metrics.exposition();
    response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
    response.end(text);
  }

  /** 200 when the database answers, 503 when it does not (a load balancer then sends elsewhere). */
  private async health(response: ServerResponse): Promise<void> {
    let up = true;
    try {
      await this.options.store.ping();
    } catch (error) {
      up = false;
      this.options.logger.warn(
        { reason: (error as Error).message },
        'the health check found the database down',
      );
    }
    response.writeHead(up ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    response.end(JSON.stringify(up ? { ok: true, database: 'up' } : { ok: false, database: 'down' }));
  }

  private async handleEvent(
    request: IncomingMessage,
    response: ServerResponse,
    raw: Buffer,
    startedAt: number,
  ): Promise<void> {
    const { logger } = this.options;
    const contentType = single(request.headers['content-type']);
    let text: string;
    try {
      text = UTF8.decode(raw);
    } catch {
      answer(response, 400, 'The body is not UTF-8 text.');
      return;
    }
    // A form is read once, here: for the ssl_check and then for the body itself.
    const form = contentType === FORM ? new URLSearchParams(text) : undefined;
    // Slack checks SSL with an unsigned `ssl_check=1`; Bolt answers it without a signature, so does this.
    if (form?.get('ssl_check') === '1') {
      answer(response, 200, '');
      return;
    }

    const signature = single(request.headers['x-slack-signature']);
    const timestampText = single(request.headers['x-slack-request-timestamp']);
    const now = this.clock();
    if (!signature || !timestampText || !/^\d{1,12}$/.test(timestampText)) {
      logger.warn('refused a request without a usable signature or timestamp');
      answer(response, 401, '');
      return;
    }
    const timestamp = Number(timestampText);
    try {
      verifySlackSignature({
        signingSecret: this.options.signingSecret,
        body: text,
        signature,
        timestamp,
        nowMilliseconds: now.getTime(),
      });
    } catch (error) {
      logger.warn({ reason: (error as Error).message }, 'refused a request whose signature does not verify');
      answer(response, 401, '');
      return;
    }
    if (timestamp > Math.floor(now.getTime() / 1000) + SIGNATURE_WINDOW_SECONDS) {
      logger.warn({ timestamp }, 'refused a request dated more than five minutes ahead');
      answer(response, 401, '');
      return;
    }
    // A signature stays valid until its timestamp leaves the window; remember it that long (and a minute).
    const signed: RequestToRemember = {
      id: `signature:${signature}`,
      expiresAt: new Date((timestamp + SIGNATURE_WINDOW_SECONDS + 60) * 1000),
      now,
    };
    // A command for the answer workers is remembered in the write that stores it: one commit, not two.
    const rememberedWithCommand = this.options.handOff !== undefined && form?.has('command') === true;
    if (!rememberedWithCommand && !(await this.remember(signed))) {
      refuseReplay(response, logger, timestamp);
      return;
    }

    const parsed = parseSlackBody(text, contentType, form);
    if (!parsed.ok) {
      logger.warn({ problem: parsed.problem }, 'refused a signed request whose body is unusable');
      answer(response, 400, parsed.problem);
      return;
    }
    const body = parsed.body;
    if (body.type === 'url_verification') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ challenge: body.challenge }));
      return;
    }
    const retryNum = retryNumber(request);
    if (body.type === 'event_callback' && typeof body.event_id === 'string') {
      const fresh = await this.options.store.rememberRequest(
        `event:${body.event_id}`,
        new Date(now.getTime() + EVENT_MEMORY_MS),
        now,
      );
      if (!fresh) {
        logger.info(
          { eventId: body.event_id, retryNum },
          'Slack sent an event again; it was handled already',
        );
        answer(response, 200, '');
        return;
      }
    }
    const kind = requestKind(body);
    if (rememberedWithCommand) {
      const handed = typeof body.command === 'string' ? await this.handOff(body, signed) : 'declined';
      if (handed === 'handed') {
        answer(response, 200, '');
        this.options.metrics?.acknowledged(kind, startedAt);
        return;
      }
      // Not taken: remembered on its own, then answered here as any other request.
      if (handed === 'replayed' || !(await this.remember(signed))) {
        refuseReplay(response, logger, timestamp);
        return;
      }
    }
    await this.dispatch(response, body, retryNum, single(request.headers['x-slack-retry-reason']), {
      kind,
      startedAt,
    });
  }

  private remember(request: RequestToRemember): Promise<boolean> {
    return this.options.store.rememberRequest(request.id, request.expiresAt, request.now);
  }

  /** What became of a command offered to the answer workers; never throws ('declined' when it could not be stored). */
  private async handOff(body: Record<string, unknown>, request: RequestToRemember): Promise<HandOff> {
    if (!this.options.handOff) return 'declined';
    try {
      return await this.options.handOff(body, request);
    } catch (error) {
      this.options.logger.error(
        { reason: (error as Error).message },
        'could not queue a command for the answer workers; answering it here',
      );
      return 'declined';
    }
  }

  private async dispatch(
    response: ServerResponse,
    body: Record<string, unknown>,
    retryNum: number | undefined,
    retryReason: string | undefined,
    timing: { kind: RequestKind; startedAt: number },
  ): Promise<void> {
    const { logger, metrics } = this.options;
    let acknowledged = false;
    const timer = setTimeout(() => {
      if (acknowledged) return;
      acknowledged = true;
      logger.warn({ type: body.type }, 'no listener acknowledged the request within 3 s');
      answer(response, 404, '');
    }, UNACKNOWLEDGED_MS);
    const ack = async (reply?: unknown) => {
      if (acknowledged) {
        logger.warn({ type: body.type }, 'a listener acknowledged a request twice; the second is ignored');
        return;
      }
      acknowledged = true;
      clearTimeout(timer);
      metrics?.acknowledged(timing.kind, timing.startedAt);
      if (reply === undefined || reply === null || reply === '') answer(response, 200, '');
      else if (typeof reply === 'string') answer(response, 200, reply);
      else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(reply));
      }
    };
    const event: ReceiverEvent = { body, ack, retryNum, retryReason, customProperties: {} };
    metrics?.answering(1);
    try {
      if (!this.app) throw new Error('the receiver was started before the app');
      await this.app.processEvent(event);
    } catch (error) {
      // The app's error handler already told the person; Slack gets an empty answer, not a 500.
      logger.error({ err: error, type: body.type }, 'the app failed to process a request');
      if (!acknowledged) await ack();
    } finally {
      metrics?.answering(-1);
      metrics?.answered(timing.kind, timing.startedAt);
    }
  }
}

function refuseReplay(response: ServerResponse, logger: Logger, timestamp: number): void {
  logger.warn({ timestamp }, 'refused a replayed request (its signature was seen before)');
  answer(response, 401, '');
}

function answer(response: ServerResponse, status: number, text: string): void {
  if (response.headersSent) return;
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(text);
}

/** A header Slack sends once; a repeated one is not Slack's. */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function retryNumber(request: IncomingMessage): number | undefined {
  const value = single(request.headers['x-slack-retry-num']);
  return value && /^\d{1,4}$/.test(value) ? Number(value) : undefined;
}
