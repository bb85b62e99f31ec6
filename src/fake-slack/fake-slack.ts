import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppSender, type Choice } from './app-sender.ts';
import { respondAt } from './response-url.ts';
import type {
  AppAnswer,
  Blocks,
  ExtraRoute,
  FakeChannel,
  FakeMessage,
  FakeSlackOptions,
  FakeUser,
  FakeView,
  RecordedCall,
  SentRequest,
} from './types.ts';
import { parseArgs, webApi } from './web-api.ts';
import { Workspace } from './workspace.ts';

export type { Choice } from './app-sender.ts';
export * from './types.ts';

/**
 * A Slack workspace on loopback that speaks Slack's wire format (../shared/SLACK.md). This file
 * serves HTTP and keeps the public API the tests and the workbench use; the parts live beside it:
 * workspace.ts (users, channels, messages, views), web-api.ts (the Web API methods),
 * response-url.ts (response_url endpoints), app-sender.ts (signed commands, clicks, submissions
 * and events sent to the app).
 */
export class FakeSlack {
  private readonly workspace: Workspace;
  private readonly sender: AppSender;
  appUrl: string | null;
  private readonly extraRoutes: ExtraRoute[] = [];
  private rateWindow = { start: 0, count: 0 };
  private server: Server | null = null;

  constructor(private readonly options: FakeSlackOptions) {
    this.workspace = new Workspace(options);
    this.appUrl = options.appUrl ?? null;
    this.sender = new AppSender(this.workspace, options.signingSecret, () => this.appUrl);
  }

  get calls(): RecordedCall[] {
    return this.workspace.calls;
  }
  get messages(): FakeMessage[] {
    return this.workspace.messages;
  }
  get views(): Map<string, FakeView> {
    return this.workspace.views;
  }
  get users(): FakeUser[] {
    return this.workspace.users;
  }
  get channels(): FakeChannel[] {
    return this.workspace.channels;
  }
  get teamId(): string {
    return this.workspace.teamId;
  }
  /** The last request sent to the app, byte for byte (to replay it). */
  get lastSent(): SentRequest | null {
    return this.sender.lastSent;
  }

  /** The Web API base for the app's `SLACK_API_URL`, ending in `/api/`. */
  get apiUrl(): string {
    return `${this.workspace.baseUrl}/api/`;
  }

  /** Serves more than the Web API on the same port (the workbench adds its page this way). */
  addRoute(route: ExtraRoute): void {
    this.extraRoutes.push(route);
  }

  async start(port = 0, host = '127.0.0.1'): Promise<this> {
    this.server = createServer((incoming, outgoing) => {
      this.handle(incoming, outgoing).catch((error) => {
        outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ ok: false, error: 'fake_slack_failure', detail: String(error) }));
      });
    });
    await new Promise<void>((ready) => this.server?.listen(port, host, ready));
    const address = this.server.address() as AddressInfo;
    this.workspace.baseUrl = `http://${host}:${address.port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    this.server = null;
  }

  // The workspace, as the tests and the workbench read it.

  /** Calls of one Web API method, oldest first. */
  callsOf(method: string): RecordedCall[] {
    return this.workspace.calls.filter((call) => call.method === method);
  }

  /** Messages a user can see in a channel: everyone's, and the ephemeral ones shown to them. */
  messagesIn(channel: string, userId?: string): FakeMessage[] {
    return this.workspace.messagesIn(channel, userId);
  }

  lastMessage(channel: string, userId?: string): FakeMessage | undefined {
    return this.messagesIn(channel, userId).at(-1);
  }

  /** The replies under a message, oldest first. */
  threadOf(channel: string, threadTs: string): FakeMessage[] {
    return this.workspace.threadOf(channel, threadTs);
  }

  homeOf(userId: string): FakeView | undefined {
    return this.workspace.homeOf(userId);
  }

  openModals(userId: string): FakeView[] {
    return this.workspace.openModals(userId);
  }

  user(id: string): FakeUser {
    return this.workspace.user(id);
  }

  /**
   * A message from the app that only `userId` sees, with whatever blocks a test gives (an older
   * card, or a forged button value), so that a click on it can be tried.
   */
  postEphemeralAsApp(userId: string, channel: string, text: string, blocks: Blocks): FakeMessage {
    return this.workspace.postMessage(channel, text, blocks, userId, null);
  }

  /** A person's own message in a channel (or a thread), as the workbench composer posts it. */
  postAsUser(userId: string, channel: string, text: string, threadTs: string | null = null): FakeMessage {
    const message = this.workspace.postMessage(channel, text, [], null, threadTs);
    message.authorId = userId;
    return message;
  }

  // What it sends to the app (app-sender.ts).

  slashCommand(userId: string, channelId: string, command: string, text: string): Promise<AppAnswer> {
    return this.sender.slashCommand(userId, channelId, command, text);
  }

  clickInMessage(
    userId: string,
    message: FakeMessage,
    actionId: string,
    choice?: Choice,
  ): Promise<AppAnswer> {
    return this.sender.clickInMessage(userId, message, actionId, choice);
  }

  clickInView(userId: string, viewId: string, actionId: string, value?: string | Choice): Promise<AppAnswer> {
    return this.sender.clickInView(userId, viewId, actionId, value);
  }

  submitView(userId: string, viewId: string, valuesByActionId: Record<string, string>): Promise<AppAnswer> {
    return this.sender.submitView(userId, viewId, valuesByActionId);
  }

  openHome(userId: string): Promise<AppAnswer> {
    return this.sender.openHome(userId);
  }

  closeView(userId: string, viewId: string): Promise<AppAnswer | null> {
    return this.sender.closeView(userId, viewId);
  }

  sendRaw(
    body: string | Buffer,
    contentType: string,
    secret?: string,
    timestamp?: number,
    extraHeaders?: Record<string, string>,
  ): Promise<AppAnswer> {
    return this.sender.sendRaw(body, contentType, secret, timestamp, extraHeaders);
  }

  resend(sent: SentRequest, url?: string, extraHeaders?: Record<string, string>): Promise<AppAnswer> {
    return this.sender.resend(sent, url, extraHeaders);
  }

  sendEvent(
    event: Record<string, unknown>,
    options?: { eventId?: string; retryNum?: number },
  ): Promise<AppAnswer> {
    return this.sender.sendEvent(event, options);
  }

  // HTTP: the Web API, response_url endpoints, and extra routes.

  private async handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of incoming) raw += chunk;
    const url = new URL(incoming.url ?? '/', this.workspace.baseUrl);
    const answer = (status: number, body: unknown) => {
      outgoing.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      outgoing.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith('/response/')) {
      answer(
        200,
        respondAt(this.workspace, url.pathname.slice('/response/'.length), JSON.parse(raw || '{}')),
      );
      return;
    }
    if (!url.pathname.startsWith('/api/')) {
      for (const route of this.extraRoutes) {
        const routed = await route({
          method: incoming.method ?? 'GET',
          path: url.pathname,
          query: url.searchParams,
          headers: incoming.headers,
          body: raw,
        });
        if (routed) {
          outgoing.writeHead(routed.status, {
            'content-type': routed.contentType,
            'cache-control': 'no-store',
          });
          outgoing.end(routed.body);
          return;
        }
      }
      answer(404, { ok: false, error: 'unknown_path' });
      return;
    }
    const method = url.pathname.slice('/api/'.length);
    const args = parseArgs(raw, incoming.headers['content-type'] ?? '');
    this.workspace.calls.push({ method, args });
    if (this.overRate()) {
      outgoing.writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' });
      outgoing.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      return;
    }
    if (
      incoming.headers.authorization !== `Bearer ${this.options.botToken}` &&
      args.token !== this.options.botToken
    ) {
      answer(200, { ok: false, error: 'invalid_auth' });
      return;
    }
    answer(200, webApi(this.workspace, method, args));
  }

  private overRate(): boolean {
    const limit = this.options.rateLimitPerSecond;
    if (!limit) return false;
    const second = Math.floor(Date.now() / 1000);
    if (this.rateWindow.start !== second) this.rateWindow = { start: second, count: 0 };
    this.rateWindow.count++;
    return this.rateWindow.count > limit;
  }
}
