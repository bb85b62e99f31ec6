import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppSender, type Choice } from './app-sender.ts';
import { Limits } from './limits.ts';
import { respondAt } from './response-url.ts';
import {
  type AppAnswer,
  type Blocks,
  BOT_USER_ID,
  type ExtraRoute,
  type FakeChannel,
  type FakeMessage,
  type FakeSlackOptions,
  type FakeUser,
  type FakeView,
  type Fault,
  type FaultMatch,
  type RecordedCall,
  type SentRequest,
  SLACKBOT_USER_ID,
} from './types.ts';
import { parseArgs, webApi } from './web-api.ts';
import { Workspace } from './workspace.ts';

export type { Choice } from './app-sender.ts';
export * from './types.ts';

/**
 * A Slack workspace on loopback that speaks Slack's wire format (../shared/SLACK.md). This file
 * serves HTTP and keeps the public API the tests and the workbench use; the parts live beside it:
 * workspace.ts (users, channels, messages, views, the clock), web-api.ts (the Web API methods,
 * with web-api-chat.ts, web-api-conversations.ts and web-api-views.ts), limits.ts (rate limits
 * and arranged faults), response-url.ts (response_url endpoints), app-sender.ts (signed commands,
 * clicks, shortcuts, submissions and events sent to the app; element-state.ts shapes what a
 * person chose), links.ts (links in message text, for unfurls).
 */
export class FakeSlack {
  private readonly workspace: Workspace;
  private readonly sender: AppSender;
  appUrl: string | null;
  private readonly extraRoutes: ExtraRoute[] = [];
  private server: Server | null = null;
  private readonly limits: Limits;
  private readonly held = new Set<() => void>();
  /** How many HTTP 429s this fake Slack has answered (any limit, or an arranged fault). */
  rateLimited = 0;
  private readonly deliveries = new WeakMap<FakeMessage, Promise<AppAnswer[]>>();
  private readonly pendingDeliveries = new Set<Promise<AppAnswer[]>>();

  constructor(private readonly options: FakeSlackOptions) {
    this.workspace = new Workspace(options);
    this.limits = new Limits(this.workspace, options);
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

  /** The workspace clock's current instant (epoch ms): `options.clock`, or real time. */
  now(): number {
    return this.workspace.now();
  }

  /** The per-channel posting limit (`postsPerSecondPerChannel`); 0 or undefined turns it off. */
  get postsPerSecondPerChannel(): number | undefined {
    return this.options.postsPerSecondPerChannel;
  }
  set postsPerSecondPerChannel(limit: number | undefined) {
    this.options.postsPerSecondPerChannel = limit;
  }

  /** The app's unfurl domains (`unfurlDomains`): links to these send `link_shared`. */
  get unfurlDomains(): string[] {
    return this.options.unfurlDomains ?? [];
  }
  set unfurlDomains(domains: string[]) {
    this.options.unfurlDomains = domains;
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

  /** The id of a person's direct messages with the app (`D` + user id), as `chat.postMessage` to a user id answers. */
  dmOf(userId: string): string {
    this.workspace.user(userId);
    return `D${userId}`;
  }

  // Faults and channel access a test arranges.

  /**
   * Makes the next call of `method` (about `match.channel`, if given) fail as `fault` says:
   * see `Fault`. Faults are used in the order arranged, each once unless `times` says more.
   */
  failNext(method: string, fault: Fault, match: FaultMatch = {}): void {
    this.limits.arrange(method, fault, match);
  }

  /** Sends every answer held by a `hold` fault; how many were sent. */
  releaseHeld(): number {
    const held = [...this.held];
    this.held.clear();
    for (const release of held) release();
    return held.length;
  }

  /** Answers held by a `hold` fault and not yet sent. */
  get heldCount(): number {
    return this.held.size;
  }

  /** Archives a channel: posting in it then answers `is_archived`; its history still reads. */
  archiveChannel(channel: string): void {
    if (!this.workspace.channels.some((candidate) => candidate.id === channel))
      throw new Error(`no fake channel ${channel}`);
    this.workspace.archived.add(channel);
  }

  unarchiveChannel(channel: string): void {
    this.workspace.archived.delete(channel);
  }

  isArchived(channel: string): boolean {
    return this.workspace.archived.has(channel);
  }

  /** Whether the app's bot user is in a channel (every channel is, until `removeApp`). */
  isAppIn(channel: string): boolean {
    return this.workspace.isMember(channel);
  }

  /**
   * Adds the app to a channel, as a person's "Add apps" does: the bot becomes a member and the
   * app gets `member_joined_channel` (user = the bot, `inviter`). Null when no app is set.
   */
  async addApp(channel: string, inviter = 'U0ADMIN'): Promise<AppAnswer | null> {
    if (!this.workspace.channels.some((candidate) => candidate.id === channel))
      throw new Error(`no fake channel ${channel}`);
    this.workspace.botIn.add(channel);
    this.workspace.membersOf(channel).add(BOT_USER_ID);
    if (!this.appUrl) return null;
    return this.sender.sendEvent({
      type: 'member_joined_channel',
      user: BOT_USER_ID,
      channel,
      channel_type: this.workspace.channel(channel).isPrivate ? 'G' : 'C',
      team: this.workspace.teamId,
      inviter,
    });
  }

  /**
   * Removes the app from a channel: posting there then answers `not_in_channel`, and the app
   * gets `channel_left` (Slack's event to the one who left, with `actor_id` who removed it).
   */
  async removeApp(channel: string, actor = 'U0ADMIN'): Promise<AppAnswer | null> {
    this.workspace.botIn.delete(channel);
    this.workspace.membersOf(channel).delete(BOT_USER_ID);
    if (!this.appUrl) return null;
    return this.sender.sendEvent({ type: 'channel_left', channel, actor_id: actor });
  }

  /**
   * A message from the app that only `userId` sees, with whatever blocks a test gives (an older
   * card, or a forged button value), so that a click on it can be tried.
   */
  postEphemeralAsApp(userId: string, channel: string, text: string, blocks: Blocks): FakeMessage {
    return this.workspace.postMessage(channel, text, blocks, userId, null);
  }

  /**
   * What Slack itself says to one person in a channel (as Slackbot, only visible to them): the
   * refusal of a command no app has, or a command's failure. The app never hears of it.
   */
  postAsSlackbot(userId: string, channel: string, text: string): FakeMessage {
    this.workspace.user(userId);
    const message = this.workspace.postMessage(channel, text, [], userId, null);
    message.authorId = SLACKBOT_USER_ID;
    return message;
  }

  /**
   * A message from the app that Slack makes of its answer to a command (the HTTP response body):
   * for `userId` alone, or for everyone when `ephemeralTo` is null.
   */
  postAsApp(channel: string, text: string, blocks: Blocks, ephemeralTo: string | null): FakeMessage {
    return this.workspace.postMessage(channel, text, blocks, ephemeralTo, null);
  }

  /**
   * A person's own message in a channel, a thread or their DM with the app (`D` + user id), as
   * the workbench composer posts it. If an app is set, the events Slack would send for it go out
   * in the background: `message` (channel_type `im`) in a DM, `link_shared` for links on the
   * unfurl domains. `deliveriesOf(message)` or `settle()` waits for them; `sendAsUser` does both.
   */
  postAsUser(userId: string, channel: string, text: string, threadTs: string | null = null): FakeMessage {
    this.workspace.user(userId);
    const message = this.workspace.postMessage(channel, text, [], null, threadTs);
    message.authorId = userId;
    if (this.appUrl) {
      const delivery = this.sender
        .eventsForPersonMessage(message, this.unfurlDomains)
        .catch((error: unknown): AppAnswer[] => [
          { status: 0, text: error instanceof Error ? error.message : String(error), json: null },
        ]);
      this.deliveries.set(message, delivery);
      delivery.finally(() => this.pendingDeliveries.delete(delivery));
      this.pendingDeliveries.add(delivery);
    }
    return message;
  }

  /** `postAsUser`, then the app's answers to the events it caused (none, a DM's, a link's). */
  async sendAsUser(
    userId: string,
    channel: string,
    text: string,
    threadTs: string | null = null,
  ): Promise<{ message: FakeMessage; answers: AppAnswer[] }> {
    const message = this.postAsUser(userId, channel, text, threadTs);
    return { message, answers: await this.deliveriesOf(message) };
  }

  /** The app's answers to the events a person's message caused (empty when none). */
  deliveriesOf(message: FakeMessage): Promise<AppAnswer[]> {
    return this.deliveries.get(message) ?? Promise.resolve([]);
  }

  /** Waits until every event caused by people's messages has been answered. */
  async settle(): Promise<void> {
    while (this.pendingDeliveries.size > 0) await Promise.all([...this.pendingDeliveries]);
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

  /** Opens the Messages tab of the app (`app_home_opened`, `tab: 'messages'`). */
  openMessagesTab(userId: string): Promise<AppAnswer> {
    return this.sender.openMessagesTab(userId);
  }

  /** A global shortcut from the ⚡ menu (`type: 'shortcut'`, callback_id, trigger_id). */
  globalShortcut(userId: string, callbackId: string): Promise<AppAnswer> {
    return this.sender.globalShortcut(userId, callbackId);
  }

  /** A message shortcut from a message's "…" menu (`type: 'message_action'`). */
  messageShortcut(userId: string, message: FakeMessage, callbackId: string): Promise<AppAnswer> {
    return this.sender.messageShortcut(userId, message, callbackId);
  }

  /**
   * Typing `typed` in an external select of an open view (`block_suggestion`): the app's answer,
   * whose options the person can then pick in `submitView` or `clickInView`.
   */
  suggestOptions(userId: string, viewId: string, actionId: string, typed: string): Promise<AppAnswer> {
    return this.sender.suggestOptions(userId, viewId, actionId, typed);
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
    let args: Record<string, unknown>;
    try {
      args = parseArgs(raw, incoming.headers['content-type'] ?? '');
    } catch {
      answer(200, { ok: false, error: 'invalid_json' });
      return;
    }
    this.workspace.calls.push({ method, args });
    if (this.limits.overRate()) {
      this.tooMany(outgoing, 1);
      return;
    }
    if (
      incoming.headers.authorization !== `Bearer ${this.options.botToken}` &&
      args.token !== this.options.botToken
    ) {
      answer(200, { ok: false, error: 'invalid_auth' });
      return;
    }
    const fault = this.limits.takeFault(method, args);
    if (fault?.kind === 'ratelimit') {
      this.tooMany(outgoing, fault.retryAfterSeconds ?? 1);
      return;
    }
    if (fault?.kind === 'error') {
      answer(200, { ok: false, error: fault.error });
      return;
    }
    const wait = method === 'chat.postMessage' ? this.limits.channelWait(args) : null;
    if (wait !== null) {
      this.tooMany(outgoing, wait);
      return;
    }
    const result = webApi(this.workspace, method, args);
    if (method === 'chat.postMessage' && result.ok) this.limits.recordPost(String(result.channel));
    if (fault?.kind === 'drop-answer') {
      // Carried out, but the answer is lost: the caller sees its connection cut.
      incoming.socket.destroy();
      return;
    }
    if (fault?.kind === 'hold') {
      const release = () => answer(200, result);
      this.held.add(release);
      outgoing.on('close', () => this.held.delete(release));
      return;
    }
    answer(200, result);
  }

  /** Slack's 429: `Retry-After` in whole seconds (at least 1) and `ratelimited`. */
  private tooMany(outgoing: ServerResponse, seconds: number): void {
    this.rateLimited++;
    outgoing.writeHead(429, {
      'content-type': 'application/json; charset=utf-8',
      'retry-after': String(Math.max(1, Math.ceil(seconds))),
    });
    outgoing.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
  }
}
