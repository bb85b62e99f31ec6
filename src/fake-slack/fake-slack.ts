import { randomBytes } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { signedHeaders } from './signing.ts';

/**
 * A Slack workspace on loopback that speaks Slack's wire format (../shared/SLACK.md): a Web API
 * that records every call and answers as Slack does, response_url endpoints, and a sender of
 * correctly signed slash commands, interactions and events to the app. The tests use it, and the
 * local workbench puts a web page on it.
 */

export interface FakeUser {
  id: string;
  name: string;
  realName: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  /** A guest: multi-channel (restricted) or single-channel (ultra-restricted). */
  isRestricted?: boolean;
  isUltraRestricted?: boolean;
}

export interface FakeChannel {
  id: string;
  name: string;
}

// biome-ignore lint/suspicious/noExplicitAny: Block Kit travels as loose JSON; the app's validator checks it.
export type Blocks = any[];

export interface FakeMessage {
  /** Who posted it: the bot (`U0BOT`) or a person typing in the workbench. */
  authorId: string;
  ts: string;
  channel: string;
  text: string;
  blocks: Blocks;
  /** Set for a message only one user sees. */
  ephemeralTo: string | null;
  threadTs: string | null;
  /** The response_url a click on this message carries. */
  responseUrl: string;
  deleted: boolean;
}

export interface FakeView {
  id: string;
  // biome-ignore lint/suspicious/noExplicitAny: as above.
  view: any;
  userId: string;
  kind: 'modal' | 'home';
}

export interface RecordedCall {
  method: string;
  // biome-ignore lint/suspicious/noExplicitAny: Web API arguments as received.
  args: Record<string, any>;
}

/** A request as sent to the app: the exact bytes and headers, so a test can send it again. */
export interface SentRequest {
  body: Buffer;
  headers: Record<string, string>;
}

export interface AppAnswer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the app's answer, if JSON.
  json: any;
}

/** A route the fake Slack serves beside the Web API (the workbench page and its JSON API). */
export type ExtraRoute = (request: {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The request's headers, so a route can tell where a request comes from. */
  headers: IncomingHttpHeaders;
  body: string;
}) => Promise<{ status: number; contentType: string; body: string } | null>;

export interface FakeSlackOptions {
  /** Where the app receives Slack's requests (`http://host:port/slack/events`). Can be set later. */
  appUrl?: string;
  signingSecret: string;
  botToken: string;
  teamId?: string;
  users?: FakeUser[];
  channels?: FakeChannel[];
  /** Web API calls allowed per second before Slack-like 429s with Retry-After; none by default. */
  rateLimitPerSecond?: number;
}

export const DEFAULT_USERS: FakeUser[] = [
  { id: 'U0ADMIN', name: 'ada', realName: 'Ada Admin', isAdmin: true },
  { id: 'U0MEMBER', name: 'max', realName: 'Max Member' },
  { id: 'U0GUEST', name: 'gus', realName: 'Gus Guest', isRestricted: true },
];
export const DEFAULT_CHANNELS: FakeChannel[] = [
  { id: 'C0BIDS', name: 'bids' },
  { id: 'C0GENERAL', name: 'general' },
];

const TRIGGER_LIFETIME_MS = 3000;

export class FakeSlack {
  readonly calls: RecordedCall[] = [];
  readonly messages: FakeMessage[] = [];
  readonly views = new Map<string, FakeView>();
  readonly users: FakeUser[];
  readonly channels: FakeChannel[];
  readonly teamId: string;
  appUrl: string | null;
  private readonly triggers = new Map<string, { userId: string; expiresAt: number }>();
  /** The message a command's response_url posted last, by its id. */
  private readonly postedThrough = new Map<string, FakeMessage>();
  /** The last request sent to the app, byte for byte (to replay it). */
  lastSent: SentRequest | null = null;
  private readonly extraRoutes: ExtraRoute[] = [];
  private readonly members = new Map<string, Set<string>>();
  private rateWindow = { start: 0, count: 0 };
  private server: Server | null = null;
  private baseUrl = '';
  private tsCounter = 0;

  constructor(private readonly options: FakeSlackOptions) {
    this.users = options.users ?? DEFAULT_USERS;
    this.channels = options.channels ?? DEFAULT_CHANNELS;
    this.teamId = options.teamId ?? 'T0TENDER';
    this.appUrl = options.appUrl ?? null;
  }

  /** The Web API base for the app's `SLACK_API_URL`, ending in `/api/`. */
  get apiUrl(): string {
    return `${this.baseUrl}/api/`;
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
    this.baseUrl = `http://${host}:${address.port}`;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    this.server = null;
  }

  /** Calls of one Web API method, oldest first. */
  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** Messages a user can see in a channel: everyone's, and the ephemeral ones shown to them. */
  messagesIn(channel: string, userId?: string): FakeMessage[] {
    return this.messages.filter(
      (message) =>
        message.channel === channel &&
        !message.deleted &&
        (message.ephemeralTo === null || message.ephemeralTo === userId),
    );
  }

  lastMessage(channel: string, userId?: string): FakeMessage | undefined {
    return this.messagesIn(channel, userId).at(-1);
  }

  homeOf(userId: string): FakeView | undefined {
    return [...this.views.values()].find((view) => view.kind === 'home' && view.userId === userId);
  }

  openModals(userId: string): FakeView[] {
    return [...this.views.values()].filter((view) => view.kind === 'modal' && view.userId === userId);
  }

  user(id: string): FakeUser {
    const user = this.users.find((candidate) => candidate.id === id);
    if (!user) throw new Error(`no fake user ${id}`);
    return user;
  }

  // -------------------------------------------------------------------------------------------
  // Requests to the app

  /** Types a slash command, as Slack posts it: form-encoded, signed, with a response_url. */
  async slashCommand(userId: string, channelId: string, command: string, text: string): Promise<AppAnswer> {
    const user = this.user(userId);
    const responseUrl = this.newResponseUrl(channelId, userId);
    const body = new URLSearchParams({
      token: 'fake-verification-token',
      team_id: this.teamId,
      team_domain: 'tenderbot-fake',
      channel_id: channelId,
      channel_name: this.channel(channelId).name,
      user_id: userId,
      user_name: user.name,
      command,
      text,
      api_app_id: 'A0TENDERBOT',
      is_enterprise_install: 'false',
      response_url: responseUrl,
      trigger_id: this.newTrigger(userId),
    }).toString();
    return this.sendToApp(body, 'application/x-www-form-urlencoded');
  }

  /** Clicks a button (or picks an option) in a stored message, building the payload from it as Slack does. */
  async clickInMessage(
    userId: string,
    message: FakeMessage,
    actionId: string,
    choice?: { value?: string; selectedOption?: string },
  ): Promise<AppAnswer> {
    const found = findElement(message.blocks, actionId);
    if (!found) throw new Error(`no element with action_id ${actionId} in message ${message.ts}`);
    const { element, blockId } = found;
    const container = {
      type: 'message',
      message_ts: message.ts,
      channel_id: message.channel,
      is_ephemeral: message.ephemeralTo !== null,
    };
    const action: Record<string, unknown> = {
      type: element.type,
      action_id: actionId,
      block_id: blockId,
      action_ts: this.nextTs(),
    };
    if (element.type === 'button') {
      action.value = choice?.value ?? element.value;
      action.text = element.text;
    } else if (element.type === 'static_select' || element.type === 'overflow') {
      const option = (element.options ?? []).find(
        (candidate: { value: string }) => candidate.value === choice?.selectedOption,
      );
      if (!option) throw new Error(`no option ${choice?.selectedOption} in ${actionId}`);
      action.selected_option = option;
    }
    const payload: Record<string, unknown> = {
      type: 'block_actions',
      user: {
        id: userId,
        username: this.user(userId).name,
        name: this.user(userId).name,
        team_id: this.teamId,
      },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      container,
      trigger_id: this.newTrigger(userId),
      team: { id: this.teamId, domain: 'tenderbot-fake' },
      enterprise: null,
      is_enterprise_install: false,
      channel: { id: message.channel, name: this.channel(message.channel).name },
      response_url: message.responseUrl,
      actions: [action],
      state: { values: {} },
    };
    // Slack sends the message only for one posted in a channel; an ephemeral click carries none.
    if (message.ephemeralTo === null) {
      payload.message = {
        type: 'message',
        ts: message.ts,
        text: message.text,
        blocks: message.blocks,
        user: 'U0BOT',
      };
    }
    return this.sendPayload(payload);
  }

  /** Clicks a button in a Home tab or modal view. */
  async clickInView(userId: string, viewId: string, actionId: string, value?: string): Promise<AppAnswer> {
    const stored = this.views.get(viewId);
    if (!stored) throw new Error(`no view ${viewId}`);
    const found = findElement(stored.view.blocks ?? [], actionId);
    if (!found) throw new Error(`no element with action_id ${actionId} in view ${viewId}`);
    return this.sendPayload({
      type: 'block_actions',
      user: { id: userId, username: this.user(userId).name, team_id: this.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      container: { type: 'view', view_id: viewId },
      trigger_id: this.newTrigger(userId),
      team: { id: this.teamId, domain: 'tenderbot-fake' },
      view: stored.view,
      actions: [
        {
          type: found.element.type,
          action_id: actionId,
          block_id: found.blockId,
          value: value ?? found.element.value,
          action_ts: this.nextTs(),
        },
      ],
    });
  }

  /**
   * Submits an open modal with plain-text values by action_id; answers the app's reply
   * (`response_action` errors stay visible to the test, as a person would see them).
   */
  async submitView(
    userId: string,
    viewId: string,
    valuesByActionId: Record<string, string>,
  ): Promise<AppAnswer> {
    const stored = this.views.get(viewId);
    if (!stored) throw new Error(`no view ${viewId}`);
    const values: Record<string, Record<string, unknown>> = {};
    for (const block of stored.view.blocks ?? []) {
      if (block.type !== 'input' || !block.element?.action_id) continue;
      const actionId = block.element.action_id as string;
      values[block.block_id] = {
        [actionId]: { type: block.element.type, value: valuesByActionId[actionId] ?? null },
      };
    }
    const answer = await this.sendPayload({
      type: 'view_submission',
      team: { id: this.teamId, domain: 'tenderbot-fake' },
      user: { id: userId, username: this.user(userId).name, team_id: this.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      trigger_id: this.newTrigger(userId),
      view: { ...stored.view, state: { values } },
    });
    // A submission without errors closes the modal, as in Slack.
    const action = answer.json?.response_action;
    if (answer.status === 200 && action !== 'errors' && action !== 'update' && action !== 'push')
      this.views.delete(viewId);
    if (action === 'update' && answer.json.view) stored.view = { ...answer.json.view, id: viewId };
    return answer;
  }

  /** Opens the App Home tab: an `app_home_opened` event. */
  async openHome(userId: string): Promise<AppAnswer> {
    const body = JSON.stringify({
      token: 'fake-verification-token',
      team_id: this.teamId,
      api_app_id: 'A0TENDERBOT',
      type: 'event_callback',
      event_id: `Ev${randomBytes(6).toString('hex')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: {
        type: 'app_home_opened',
        user: userId,
        channel: `D${userId}`,
        tab: 'home',
        event_ts: this.nextTs(),
      },
    });
    return this.sendToApp(body, 'application/json');
  }

  /** Closes a modal with its close button: `view_closed` when the app asked for it (notify_on_close). */
  async closeView(userId: string, viewId: string): Promise<AppAnswer | null> {
    const stored = this.views.get(viewId);
    if (!stored) throw new Error(`no view ${viewId}`);
    this.views.delete(viewId);
    if (!stored.view.notify_on_close) return null;
    return this.sendPayload({
      type: 'view_closed',
      team: { id: this.teamId, domain: 'tenderbot-fake' },
      user: { id: userId, username: this.user(userId).name, team_id: this.teamId },
      api_app_id: 'A0TENDERBOT',
      token: 'fake-verification-token',
      view: stored.view,
      is_cleared: false,
    });
  }

  /**
   * A message from the app that only `userId` sees, with whatever blocks a test gives (an older
   * card, or a forged button value), so that a click on it can be tried.
   */
  postEphemeralAsApp(userId: string, channel: string, text: string, blocks: Blocks): FakeMessage {
    return this.store(channel, text, blocks, userId, null);
  }

  /** A person's own message in a channel (or a thread), as the workbench composer posts it. */
  postAsUser(userId: string, channel: string, text: string, threadTs: string | null = null): FakeMessage {
    const message = this.store(channel, text, [], null, threadTs);
    message.authorId = userId;
    return message;
  }

  /**
   * Sends any raw body (text or bytes, any content type) to the app with a signature made by
   * `secret` at `timestamp`, and any extra headers (to test refusals and the app's guard).
   */
  async sendRaw(
    body: string | Buffer,
    contentType: string,
    secret: string = this.options.signingSecret,
    timestamp: number = Math.floor(Date.now() / 1000),
    extraHeaders: Record<string, string> = {},
  ): Promise<AppAnswer> {
    return this.post(body, { ...signedHeaders(secret, body, contentType, timestamp), ...extraHeaders });
  }

  /** Sends a request again exactly as it was (a replay), to this app or another copy of it at `url`. */
  async resend(
    sent: SentRequest,
    url?: string,
    extraHeaders: Record<string, string> = {},
  ): Promise<AppAnswer> {
    return this.post(sent.body, { ...sent.headers, ...extraHeaders }, url);
  }

  /**
   * An Events API delivery of `event`, signed now; `retryNum` adds Slack's retry headers, as when
   * Slack sends the same event (same event_id) again because it thinks the first delivery failed.
   */
  async sendEvent(
    event: Record<string, unknown>,
    options: { eventId?: string; retryNum?: number } = {},
  ): Promise<AppAnswer> {
    const body = JSON.stringify({
      token: 'fake-verification-token',
      team_id: this.teamId,
      api_app_id: 'A0TENDERBOT',
      type: 'event_callback',
      event_id: options.eventId ?? `Ev${randomBytes(6).toString('hex')}`,
      event_time: Math.floor(Date.now() / 1000),
      event: { event_ts: this.nextTs(), ...event },
    });
    const retry: Record<string, string> =
      options.retryNum === undefined
        ? {}
        : { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' };
    return this.sendRaw(body, 'application/json', this.options.signingSecret, undefined, retry);
  }

  private sendPayload(payload: Record<string, unknown>): Promise<AppAnswer> {
    return this.sendToApp(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
  }

  private sendToApp(
    body: string,
    contentType: 'application/x-www-form-urlencoded' | 'application/json',
  ): Promise<AppAnswer> {
    return this.post(body, signedHeaders(this.options.signingSecret, body, contentType));
  }

  private async post(
    body: string | Buffer,
    headers: Record<string, string>,
    url?: string,
  ): Promise<AppAnswer> {
    const target = url ?? this.appUrl;
    if (!target) throw new Error('the fake Slack does not know where the app is (appUrl)');
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    this.lastSent = { body: bytes, headers };
    const response = await request(target, { method: 'POST', headers, body: bytes });
    const text = await response.body.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: response.statusCode, text, json };
  }

  // -------------------------------------------------------------------------------------------
  // The Web API and response_url endpoints

  private async handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of incoming) raw += chunk;
    const url = new URL(incoming.url ?? '/', this.baseUrl);
    const answer = (status: number, body: unknown) => {
      outgoing.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      outgoing.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith('/response/')) {
      answer(200, this.respond(url.pathname.slice('/response/'.length), JSON.parse(raw || '{}')));
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
    this.calls.push({ method, args });
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
    answer(200, this.webApi(method, args));
  }

  // biome-ignore lint/suspicious/noExplicitAny: Web API arguments are loose JSON.
  private webApi(method: string, args: Record<string, any>): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://tenderbot-fake.slack.com/',
          team: 'Tenderbot Fake',
          user: 'tenderbot',
          team_id: this.teamId,
          user_id: 'U0BOT',
          bot_id: 'B0BOT',
        };
      case 'users.info': {
        const user = this.users.find((candidate) => candidate.id === args.user);
        if (!user) return { ok: false, error: 'user_not_found' };
        return {
          ok: true,
          user: {
            id: user.id,
            team_id: this.teamId,
            name: user.name,
            real_name: user.realName,
            is_admin: user.isAdmin ?? false,
            is_owner: user.isOwner ?? false,
            is_restricted: user.isRestricted ?? false,
            is_ultra_restricted: user.isUltraRestricted ?? false,
            is_bot: false,
            profile: { real_name: user.realName, display_name: user.name },
          },
        };
      }
      case 'conversations.members':
        return {
          ok: true,
          members: [...this.membersOf(args.channel)],
          response_metadata: { next_cursor: '' },
        };
      case 'conversations.join': {
        if (!this.channels.some((channel) => channel.id === args.channel))
          return { ok: false, error: 'channel_not_found' };
        this.membersOf(args.channel).add('U0BOT');
        return { ok: true, channel: { id: args.channel, name: this.channel(args.channel).name } };
      }
      case 'team.info':
        return { ok: true, team: { id: this.teamId, name: 'Tenderbot Fake', domain: 'tenderbot-fake' } };
      case 'conversations.info': {
        const channel = this.channels.find((candidate) => candidate.id === args.channel);
        return channel
          ? { ok: true, channel: { id: channel.id, name: channel.name, is_channel: true, is_member: true } }
          : { ok: false, error: 'channel_not_found' };
      }
      case 'chat.postMessage': {
        if (!this.channels.some((channel) => channel.id === args.channel))
          return { ok: false, error: 'channel_not_found' };
        const message = this.store(
          args.channel,
          args.text ?? '',
          args.blocks ?? [],
          null,
          args.thread_ts ?? null,
        );
        return {
          ok: true,
          channel: message.channel,
          ts: message.ts,
          message: { ts: message.ts, text: message.text, blocks: message.blocks },
        };
      }
      case 'chat.postEphemeral': {
        const message = this.store(args.channel, args.text ?? '', args.blocks ?? [], args.user, null);
        return { ok: true, message_ts: message.ts };
      }
      case 'chat.update': {
        const message = this.messages.find(
          (candidate) => candidate.channel === args.channel && candidate.ts === args.ts && !candidate.deleted,
        );
        // Slack cannot update an ephemeral message through chat.update: only through its response_url.
        if (!message || message.ephemeralTo !== null) return { ok: false, error: 'message_not_found' };
        message.text = args.text ?? message.text;
        message.blocks = args.blocks ?? message.blocks;
        return { ok: true, channel: message.channel, ts: message.ts, text: message.text };
      }
      case 'chat.delete': {
        const message = this.messages.find(
          (candidate) => candidate.channel === args.channel && candidate.ts === args.ts,
        );
        if (!message || message.ephemeralTo !== null) return { ok: false, error: 'message_not_found' };
        message.deleted = true;
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'views.open':
      case 'views.push': {
        const trigger = this.triggers.get(args.trigger_id);
        this.triggers.delete(args.trigger_id);
        if (!trigger) return { ok: false, error: 'invalid_trigger_id' };
        if (trigger.expiresAt < Date.now()) return { ok: false, error: 'expired_trigger_id' };
        const id = `V${randomBytes(5).toString('hex').toUpperCase()}`;
        const view = {
          ...args.view,
          id,
          team_id: this.teamId,
          state: { values: {} },
          hash: randomBytes(4).toString('hex'),
        };
        this.views.set(id, { id, view, userId: trigger.userId, kind: 'modal' });
        return { ok: true, view };
      }
      case 'views.update': {
        const stored = this.views.get(args.view_id);
        if (!stored) return { ok: false, error: 'not_found' };
        stored.view = {
          ...args.view,
          id: stored.id,
          team_id: this.teamId,
          state: { values: {} },
          hash: randomBytes(4).toString('hex'),
        };
        return { ok: true, view: stored.view };
      }
      case 'views.publish': {
        const existing = this.homeOf(args.user_id);
        const id = existing?.id ?? `V${randomBytes(5).toString('hex').toUpperCase()}`;
        const view = { ...args.view, id, team_id: this.teamId };
        this.views.set(id, { id, view, userId: args.user_id, kind: 'home' });
        return { ok: true, view };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  /** A POST to a response_url: replaces, deletes, or adds a message, ephemeral unless in_channel. */
  // biome-ignore lint/suspicious/noExplicitAny: the body of a response_url POST.
  private respond(responseId: string, body: any): Record<string, unknown> {
    const [channel, userId, originalTs] = Buffer.from(responseId, 'base64url').toString('utf8').split('|');
    if (!channel || !userId) return { ok: false, error: 'invalid_response_url' };
    this.calls.push({
      method: 'response_url',
      args: { ...body, channel, user: userId, originalTs: originalTs || null },
    });
    // A click's response_url belongs to the clicked message; a command's, to what it posted last
    // (Slack lets a command's later answer replace its earlier one).
    const original = originalTs
      ? this.messages.find((message) => message.ts === originalTs && message.channel === channel)
      : this.postedThrough.get(responseId);
    if (body.delete_original && original) {
      original.deleted = true;
      return { ok: true };
    }
    if (body.replace_original && original) {
      original.text = body.text ?? original.text;
      original.blocks = body.blocks ?? [];
      if (body.response_type === 'in_channel') original.ephemeralTo = null;
      return { ok: true };
    }
    const ephemeralTo = body.response_type === 'in_channel' ? null : userId;
    const posted = this.store(
      channel,
      body.text ?? '',
      body.blocks ?? [],
      ephemeralTo,
      body.thread_ts ?? null,
    );
    if (!originalTs) this.postedThrough.set(responseId, posted);
    return { ok: true };
  }

  private overRate(): boolean {
    const limit = this.options.rateLimitPerSecond;
    if (!limit) return false;
    const second = Math.floor(Date.now() / 1000);
    if (this.rateWindow.start !== second) this.rateWindow = { start: second, count: 0 };
    this.rateWindow.count++;
    return this.rateWindow.count > limit;
  }

  private membersOf(channel: string): Set<string> {
    let members = this.members.get(channel);
    if (!members) {
      members = new Set(this.users.map((user) => user.id));
      this.members.set(channel, members);
    }
    return members;
  }

  private store(
    channel: string,
    text: string,
    blocks: Blocks,
    ephemeralTo: string | null,
    threadTs: string | null,
  ): FakeMessage {
    const ts = this.nextTs();
    const message: FakeMessage = {
      authorId: 'U0BOT',
      ts,
      channel,
      text,
      blocks,
      ephemeralTo,
      threadTs,
      responseUrl: this.newResponseUrl(channel, ephemeralTo ?? 'U0ANYONE', ts),
      deleted: false,
    };
    this.messages.push(message);
    return message;
  }

  /** A response_url names its channel, user and (for a click) the message it belongs to. */
  private newResponseUrl(channel: string, userId: string, messageTs = ''): string {
    return `${this.baseUrl}/response/${Buffer.from(`${channel}|${userId}|${messageTs}`).toString('base64url')}`;
  }

  private newTrigger(userId: string): string {
    const id = `${Date.now()}.${randomBytes(8).toString('hex')}`;
    this.triggers.set(id, { userId, expiresAt: Date.now() + TRIGGER_LIFETIME_MS });
    return id;
  }

  private nextTs(): string {
    this.tsCounter++;
    return `${Math.floor(Date.now() / 1000)}.${String(this.tsCounter).padStart(6, '0')}`;
  }

  private channel(id: string): FakeChannel {
    return this.channels.find((channel) => channel.id === id) ?? { id, name: id.toLowerCase() };
  }
}

/** Web API arguments: form-encoded with JSON strings for blocks and views, or a JSON body. */
function parseArgs(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json'))
    return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  const args: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    args[name] = ['blocks', 'view', 'attachments', 'metadata'].includes(name) ? safeJson(value) : value;
  }
  return args;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: walks loose Block Kit JSON.
function findElement(blocks: Blocks, actionId: string): { element: any; blockId: string } | null {
  for (const block of blocks) {
    const candidates = [...(block.elements ?? []), block.accessory, block.element].filter(Boolean);
    for (const element of candidates) {
      if (element.action_id === actionId) return { element, blockId: block.block_id ?? '' };
    }
  }
  return null;
}
