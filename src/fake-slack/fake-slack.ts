import { AppSender, type Choice } from './app-sender.ts';
import { FakeSlackServer, WebApiGate } from './fake-slack-server.ts';
import { FakeSlackState } from './fake-slack-state.ts';
import { WorkflowBuilder } from './functions.ts';
import type { FakeOAuthApp } from './install.ts';
import { Limits } from './limits.ts';
import type { SocketMode } from './socket-mode.ts';
import {
  type AppAnswer,
  BOT_USER_ID,
  type ExtraRoute,
  type FakeChannel,
  type FakeMessage,
  type FakeSlackOptions,
  type FakeUser,
  type Fault,
  type FaultMatch,
  type SentRequest,
} from './types.ts';
import { WorkObjects } from './work-objects.ts';
import type { WorkspaceIdentity } from './workspace.ts';

export type { Choice } from './app-sender.ts';
export type { FakeOAuthApp } from './install.ts';

/** A workspace added beside the first: its own team id, people, channels and (once installed) tokens. */
export interface NewWorkspace extends WorkspaceIdentity {
  teamId: string;
  teamName: string;
  users?: FakeUser[];
  channels?: FakeChannel[];
  /** A bot token that works from the start (as if installed before); none by default: install it. */
  botToken?: string;
}

export * from './types.ts';

/**
 * A Slack workspace on loopback that speaks Slack's wire format (../shared/SLACK.md). This file
 * keeps the public API the tests and the workbench use; the parts live beside it:
 * fake-slack-state.ts (what a workspace holds, as tests read and arrange it), workspace.ts (users,
 * channels, messages, views, the clock), fake-slack-server.ts (the HTTP server and its routing,
 * each workspace's gate to the Web API), web-api.ts (the Web API methods, with web-api-chat.ts,
 * web-api-conversations.ts and web-api-views.ts), limits.ts (rate limits and arranged faults),
 * response-url.ts (response_url endpoints), app-sender.ts (signed commands, clicks, shortcuts,
 * submissions and events sent to the app; element-state.ts shapes what a person chose), links.ts
 * (links in message text, for unfurls), install.ts (the install page and oauth.v2.access). One
 * fake Slack may hold several workspaces (`addWorkspace`): the options describe the first, and
 * each added one answers through its own FakeSlack (`team(id)`).
 */
export class FakeSlack extends FakeSlackState {
  private readonly sender: AppSender;
  private readonly hub: FakeSlackServer<FakeSlack>;
  private readonly gate: WebApiGate;
  private readonly deliveries = new WeakMap<FakeMessage, Promise<AppAnswer[]>>();
  private readonly pendingDeliveries = new Set<Promise<AppAnswer[]>>();

  /** `options` describe the first workspace (and the app); `addWorkspace` adds more. */
  constructor(
    options: FakeSlackOptions & WorkspaceIdentity,
    /** Internal: the shared part, when this is a workspace added to another fake Slack. */
    hub?: FakeSlackServer<FakeSlack>,
  ) {
    super(options);
    this.gate = new WebApiGate(this.workspace, new Limits(this.workspace, options));
    this.hub =
      hub ?? new FakeSlackServer(options.oauth, () => this.workspace.now(), options.appToken ?? null);
    if (!hub) this.hub.appUrl = options.appUrl ?? null;
    this.hub.join(this, this.gate);
    this.sender = new AppSender(
      this.workspace,
      options.signingSecret,
      () => this.hub.appUrl,
      () => this.hub.socketMode,
    );
  }

  /** Where the app receives Slack's requests (`http://host:port/slack/events`), for every workspace. */
  get appUrl(): string | null {
    return this.hub.appUrl;
  }
  set appUrl(url: string | null) {
    this.hub.appUrl = url;
  }

  // Several workspaces in one fake Slack.

  /**
   * Adds a workspace served by the same fake Slack (same app, same signing secret): the answer
   * sends commands and clicks as that workspace's people and reads its messages.
   */
  addWorkspace(workspace: NewWorkspace): FakeSlack {
    if (this.hub.teams.some((team) => team.teamId === workspace.teamId))
      throw new Error(`the fake Slack has a workspace ${workspace.teamId} already`);
    const { botToken, ...identity } = workspace;
    return new FakeSlack(
      {
        ...identity,
        signingSecret: this.options.signingSecret,
        botToken: botToken ?? '',
        ...(this.options.clock ? { clock: this.options.clock } : {}),
        ...(this.options.marketplaceApp ? { marketplaceApp: true } : {}),
        unfurlDomains: this.options.unfurlDomains,
      },
      this.hub,
    );
  }

  /** Every workspace of this fake Slack, the first one first. */
  get workspaces(): FakeSlack[] {
    return [...this.hub.teams];
  }

  /** One workspace of this fake Slack by team id. */
  team(teamId: string): FakeSlack {
    const team = this.hub.teams.find((candidate) => candidate.teamId === teamId);
    if (!team) throw new Error(`no fake workspace ${teamId}`);
    return team;
  }

  /** The app as Slack's app settings know it (client id, secret, redirect URLs), for the install flow. */
  get oauthApp(): FakeOAuthApp | null {
    return this.hub.install.app;
  }
  set oauthApp(app: FakeOAuthApp | null) {
    this.hub.install.app = app;
  }

  /**
   * Someone removes the app from this workspace: its tokens stop working (`token_revoked`), and the
   * app gets `app_uninstalled` and `tokens_revoked` (Slack sends both). With an organisation-wide
   * install, the organisation's token goes for every workspace of it.
   */
  async uninstallApp(): Promise<AppAnswer[]> {
    const { bots, done } = this.revoke();
    try {
      if (!this.appUrl) return [];
      return [
        await this.sender.sendEvent({ type: 'app_uninstalled' }),
        await this.sender.sendEvent({ type: 'tokens_revoked', tokens: { oauth: [], bot: bots } }),
      ];
    } finally {
      done();
    }
  }

  /**
   * An organisation admin removes the app from this one workspace of an organisation-wide install:
   * the organisation's token no longer acts here (the other workspaces keep it), and the app gets
   * `team_access_revoked` naming this workspace, as Slack sends an organisation-ready app.
   */
  async removeFromOrganisationInstall(): Promise<AppAnswer | null> {
    const org = this.orgTeams();
    const tokens = [...this.workspace.tokens].filter((token) =>
      org.some((team) => team !== this && team.workspace.tokens.has(token)),
    );
    if (!this.workspace.orgWideInstall || tokens.length === 0)
      throw new Error(`the app is not installed organisation-wide in ${this.teamId}`);
    for (const token of tokens) this.workspace.tokens.delete(token);
    this.workspace.orgWideInstall = false;
    const other = org.find((team) => team !== this && team.workspace.orgWideInstall) ?? this;
    if (!this.appUrl) return null;
    // Sent for the organisation's install (by a workspace it still covers).
    return other.sender.sendEvent({ type: 'team_access_revoked', team_ids: [this.teamId] });
  }

  /** An organisation admin adds the app to this workspace of the organisation: `team_access_granted`. */
  async addToOrganisationInstall(): Promise<AppAnswer | null> {
    const from = this.orgTeams().find((team) => team !== this && team.workspace.orgWideInstall);
    if (!from) throw new Error(`no organisation-wide install covers ${this.enterprise?.id ?? this.teamId}`);
    for (const token of from.workspace.tokens) this.workspace.tokens.add(token);
    this.workspace.orgWideInstall = true;
    if (!this.appUrl) return null;
    return from.sender.sendEvent({ type: 'team_access_granted', team_ids: [this.teamId] });
  }

  private orgTeams(): FakeSlack[] {
    const enterpriseId = this.enterprise?.id;
    return enterpriseId ? this.hub.teams.filter((team) => team.enterprise?.id === enterpriseId) : [this];
  }

  /** Revokes this workspace's bot tokens (an admin's "Revoke tokens"): only `tokens_revoked` is sent. */
  async revokeTokens(): Promise<AppAnswer | null> {
    const { bots, done } = this.revoke();
    try {
      if (!this.appUrl) return null;
      return await this.sender.sendEvent({ type: 'tokens_revoked', tokens: { oauth: [], bot: bots } });
    } finally {
      done();
    }
  }

  /**
   * Takes this workspace's tokens back (with an organisation-wide install, from every workspace of
   * the organisation). The events about it still describe the install they end, so `done` marks
   * the install gone once they are sent. `bots`: the bot users whose tokens went.
   */
  private revoke(): { bots: string[]; done: () => void } {
    const tokens = [...this.workspace.tokens];
    const affected = this.workspace.orgWideInstall
      ? this.hub.teams.filter((team) => team.enterprise?.id === this.enterprise?.id)
      : [this];
    for (const team of affected) {
      for (const token of tokens) {
        team.workspace.tokens.delete(token);
        team.workspace.revokedTokens.add(token);
      }
    }
    return {
      bots: tokens.length > 0 ? [BOT_USER_ID] : [],
      done: () => {
        for (const team of affected) team.workspace.orgWideInstall = false;
      },
    };
  }

  /** The last request sent to the app, byte for byte (to replay it). */
  get lastSent(): SentRequest | null {
    return this.sender.lastSent;
  }

  /**
   * Moves the clock of every workspace of this fake Slack on by `ms` (beside `options.clock`):
   * response_urls expire, history and posting limits reopen, without a test sleeping.
   */
  advanceClock(ms: number): void {
    for (const team of this.hub.teams) team.workspace.clockOffsetMs += ms;
  }

  /** Slack's Socket Mode side: connections, envelopes sent and acknowledgements received. */
  get socketMode(): SocketMode {
    return this.hub.socketMode;
  }

  /** Whether the app holds a Socket Mode connection (then every delivery goes through it). */
  get inSocketMode(): boolean {
    return this.hub.socketMode.connected;
  }

  /** Asks the app to reconnect, as Slack does before it recycles a connection (`{"type":"disconnect"}`). */
  askToReconnect(reason = 'refresh_requested'): void {
    this.hub.socketMode.disconnect(reason);
  }

  /** The Web API base for the app's `SLACK_API_URL`, ending in `/api/`. */
  get apiUrl(): string {
    return `${this.hub.baseUrl}/api/`;
  }

  /** Where the fake Slack is served (`http://host:port`), once started. */
  get baseUrl(): string {
    return this.hub.baseUrl;
  }

  /** Slack's install page for the app (`/oauth/v2/authorize`), where an "Add to Slack" link leads. */
  get authorizeUrl(): string {
    return `${this.hub.baseUrl}/oauth/v2/authorize`;
  }

  /** Serves more than the Web API on the same port (the workbench adds its page this way). */
  addRoute(route: ExtraRoute): void {
    this.hub.extraRoutes.push(route);
  }

  /** Serves every workspace of this fake Slack on one port. */
  async start(port = 0, host = '127.0.0.1'): Promise<this> {
    await this.hub.start(port, host, this.gate);
    return this;
  }

  stop(): Promise<void> {
    return this.hub.stop();
  }

  // Faults a test arranges (channel access: fake-slack-state.ts).

  /**
   * Makes the next call of `method` (about `match.channel`, if given) fail as `fault` says:
   * see `Fault`. Faults are used in the order arranged, each once unless `times` says more.
   */
  failNext(method: string, fault: Fault, match: FaultMatch = {}): void {
    this.gate.limits.arrange(method, fault, match);
  }

  /** Sends every answer held by a `hold` fault; how many were sent. */
  releaseHeld(): number {
    return this.gate.releaseHeld();
  }

  /** Answers held by a `hold` fault and not yet sent. */
  get heldCount(): number {
    return this.gate.heldCount;
  }

  /** How many HTTP 429s this fake Slack has answered (any limit, or an arranged fault). */
  get rateLimited(): number {
    return this.gate.rateLimited;
  }
  set rateLimited(count: number) {
    this.gate.rateLimited = count;
  }

  // Channel access that the app hears of.

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

  submitView(userId: string, viewId: string, typed: Record<string, string>): Promise<AppAnswer> {
    return this.sender.submitView(userId, viewId, typed);
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

  /** Workflow Builder running the app's custom steps (functions.ts). */
  get workflows(): WorkflowBuilder {
    return new WorkflowBuilder(this.workspace, (event, options) => this.sender.sendEvent(event, options));
  }

  /** Work Objects: entities unfurled on messages, and the flexpane a click opens (work-objects.ts). */
  get workObjects(): WorkObjects {
    return new WorkObjects(this.workspace, (event) => this.sender.sendEvent(event));
  }

  sendEvent(
    event: Record<string, unknown>,
    options?: { eventId?: string; retryNum?: number },
  ): Promise<AppAnswer> {
    return this.sender.sendEvent(event, options);
  }
}
