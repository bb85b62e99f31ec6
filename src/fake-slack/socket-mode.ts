import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AppAnswer } from './types.ts';

/** How long Slack waits for an envelope's acknowledgement. */
export const SOCKET_ACK_TIMEOUT_MS = 3000;
/** Where the fake Slack serves its WebSocket (the URL `apps.connections.open` answers). */
const SOCKET_PATH = '/socket-mode';

type EnvelopeType = 'events_api' | 'slash_commands' | 'interactive';

/**
 * Slack's Socket Mode (../shared/SLACK.md): the app-level token (`xapp-…`) calls
 * `apps.connections.open`, which answers a one-time WebSocket URL on the fake's own server; Slack
 * says `hello`, then sends envelopes `{envelope_id, type, payload, accepts_response_payload}` for
 * what it would otherwise POST to the app, and waits 3 s for `{envelope_id, payload?}`; it may ask
 * the app to reconnect with `disconnect`. While a connection is open, what the fake Slack sends to
 * the app (commands, clicks, events) goes through it instead of HTTP.
 */
export class SocketMode {
  private readonly server = new WebSocketServer({ noServer: true });
  /** One-time tickets of the URLs `apps.connections.open` gave out and not yet used. */
  private readonly tickets = new Set<string>();
  /** Open connections, the newest last: an envelope goes to the newest, as one of them gets it in Slack. */
  private readonly connections: WebSocket[] = [];
  private readonly waiting = new Map<string, (payload: unknown) => void>();
  /** How many times `apps.connections.open` has answered a URL. */
  opened = 0;
  /** Envelopes sent, oldest first (what a test reads to see what travelled the socket). */
  readonly sent: { envelope_id: string; type: EnvelopeType; payload: unknown }[] = [];
  /** Acknowledgements received, with the payload the app gave (null without one). */
  readonly acks: { envelope_id: string; payload: unknown }[] = [];

  constructor(
    /** The app-level token that may open connections (`FakeSlackOptions.appToken`). */
    readonly appToken: string | null,
  ) {}

  /** `apps.connections.open`: Slack's answer for the token the call carried. */
  open(token: string, baseUrl: string): Record<string, unknown> {
    if (!this.appToken || token !== this.appToken)
      return { ok: false, error: token.startsWith('xapp-') ? 'invalid_auth' : 'not_allowed_token_type' };
    const ticket = randomBytes(16).toString('hex');
    this.tickets.add(ticket);
    this.opened++;
    return { ok: true, url: `${baseUrl.replace(/^http/, 'ws')}${SOCKET_PATH}?ticket=${ticket}` };
  }

  /** Takes an HTTP upgrade to the socket path with a ticket not yet used; anything else is refused. */
  upgrade(incoming: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(incoming.url ?? '/', 'http://fake');
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== SOCKET_PATH || !this.tickets.delete(ticket)) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    this.server.handleUpgrade(incoming, socket, head, (connection) => this.accept(connection));
  }

  private accept(connection: WebSocket): void {
    this.connections.push(connection);
    connection.on('close', () => {
      const index = this.connections.indexOf(connection);
      if (index >= 0) this.connections.splice(index, 1);
    });
    connection.on('message', (data) => this.received(data.toString()));
    connection.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.connections.length,
        debug_info: { host: 'fake-slack', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A0TENDERBOT' },
      }),
    );
  }

  private received(text: string): void {
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message.envelope_id !== 'string') return;
    const payload = message.payload ?? null;
    this.acks.push({ envelope_id: message.envelope_id, payload });
    this.waiting.get(message.envelope_id)?.(payload);
  }

  /** Whether the app holds an open connection (then it gets everything through it). */
  get connected(): boolean {
    return this.connections.some((connection) => connection.readyState === connection.OPEN);
  }

  /** How many connections are open now. */
  get connectionCount(): number {
    return this.connections.filter((connection) => connection.readyState === connection.OPEN).length;
  }

  /**
   * Sends what would have been POSTed to the app as an envelope, and answers the app's
   * acknowledgement as an HTTP answer would read: status 200 with the ack's payload as JSON (an
   * empty payload as an empty body), or 404 with no acknowledgement within 3 s, as Bolt's HTTP
   * receiver answers then, so callers read both modes alike.
   */
  async deliver(
    body: string,
    contentType: string,
    retry: { attempt?: number; reason?: string } = {},
  ): Promise<AppAnswer> {
    const connection = this.connections.filter((candidate) => candidate.readyState === candidate.OPEN).at(-1);
    if (!connection) throw new Error('the app holds no Socket Mode connection');
    const { type, payload, acceptsResponse } = envelopeOf(body, contentType);
    const envelopeId = randomUUID();
    const envelope = {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: acceptsResponse,
      ...(retry.attempt !== undefined
        ? { retry_attempt: retry.attempt, retry_reason: retry.reason ?? '' }
        : {}),
    };
    this.sent.push({ envelope_id: envelopeId, type, payload });
    const acked = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(envelopeId);
        reject(new Error('no acknowledgement'));
      }, SOCKET_ACK_TIMEOUT_MS);
      this.waiting.set(envelopeId, (ackPayload) => {
        clearTimeout(timer);
        this.waiting.delete(envelopeId);
        resolve(ackPayload);
      });
    });
    connection.send(JSON.stringify(envelope));
    try {
      const ackPayload = await acked;
      const empty =
        ackPayload === null ||
        (typeof ackPayload === 'object' && Object.keys(ackPayload as object).length === 0);
      return empty
        ? { status: 200, text: '', json: null }
        : { status: 200, text: JSON.stringify(ackPayload), json: ackPayload };
    } catch {
      return { status: 404, text: 'no acknowledgement within 3 s', json: null };
    }
  }

  /** Asks the app to reconnect (`{"type":"disconnect"}`), as Slack does before recycling a connection. */
  disconnect(reason = 'refresh_requested'): void {
    for (const connection of this.connections)
      connection.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack' } }));
  }

  /** Closes every connection and the server (the fake Slack stops). */
  close(): void {
    for (const connection of this.connections) connection.terminate();
    this.connections.length = 0;
    this.server.close();
  }
}

/**
 * What an HTTP delivery becomes on the socket: an event (`events_api`, the whole callback), a
 * slash command (`slash_commands`, its form fields) or an interactivity payload (`interactive`).
 * Commands, submissions and option requests accept a response payload; events do not.
 */
function envelopeOf(
  body: string,
  contentType: string,
): { type: EnvelopeType; payload: unknown; acceptsResponse: boolean } {
  if (contentType.startsWith('application/json'))
    return { type: 'events_api', payload: JSON.parse(body), acceptsResponse: false };
  const form = new URLSearchParams(body);
  const payload = form.get('payload');
  if (payload !== null) {
    const parsed = JSON.parse(payload) as { type?: string };
    const answered = ['view_submission', 'block_suggestion'];
    return { type: 'interactive', payload: parsed, acceptsResponse: answered.includes(parsed.type ?? '') };
  }
  return { type: 'slash_commands', payload: Object.fromEntries(form), acceptsResponse: true };
}
