/*
 * Over 500 lines: the fake Slack's server, its state and the requests it sends the app, as one
 * object the tests drive; the Web API methods, response_url, Socket Mode and block rules are
 * already files of their own beside it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitSlowClients } from '../shared/slow-clients.ts';
import { AppSender, type Choice } from './app-sender.ts';
import { WorkflowBuilder } from './functions.ts';
import { FakeInstall, type FakeOAuthApp } from './install.ts';
import { Limits } from './limits.ts';
import { respondAt } from './response-url.ts';
import { SocketMode } from './socket-mode.ts';
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
import { WorkObjects } from './work-objects.ts';
import { Workspace, type WorkspaceIdentity } from './workspace.ts';

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

/**
 * What the workspaces of one fake Slack share: one server, the app's address, the extra routes and
 * the install flow. Web API calls find their workspace by the token they carry.
 */
class FakeSlackHub {
  readonly teams: FakeSlack[] = [];
  appUrl: string | null = null;
  baseUrl = '';
  readonly extraRoutes: ExtraRoute[] = [];
  server: Server | null = null;
  readonly install: FakeInstall;
  /** Socket Mode: the app's connections, opened with its app-level token. */
  readonly socketMode: SocketMode;

  constructor(oauth: FakeOAuthApp | undefined, now: () => number, appToken: string | null) {
    this.install = new FakeInstall(oauth, () => this.teams.map((team) => team.workspaceState), now);
    this.socketMode = new SocketMode(appToken);
  }

  /**
   * The workspace a token acts in. An organisation-wide token acts in each of its workspaces: the
   * call's team_id, channel or user says which, else the first.
   */
  teamFor(token: string, args: Record<string, unknown>): FakeSlack | null {
    const holders = this.teams.filter((team) => team.workspaceState.tokens.has(token));
    if (holders.length <= 1) return holders[0] ?? null;
    return (
      holders.find((team) => team.teamId === args.team_id) ??
      holders.find(
        (team) => typeof args.channel === 'string' && team.workspaceState.hasChannel(args.channel),
      ) ??
      holders.find((team) => team.workspaceState.users.some((user) => user.id === args.user)) ??
      holders[0] ??
      null
    );
  }

  isRevoked(token: string): boolean {
    return this.teams.some((team) => team.workspaceState.revokedTokens.has(token));
  }
}

export * from './types.ts';

/**
 * A Slack workspace on loopback that speaks Slack's wire format (../shared/SLACK.md). This file
 * serves HTTP and keeps the public API the tests and the workbench use; the parts live beside it:
 * workspace.ts (users, channels, messages, views, the clock), web-api.ts (the Web API methods,
 * with web-api-chat.ts, web-api-conversations.ts and web-api-views.ts), limits.ts (rate limits
 * and arranged faults), response-url.ts (response_url endpoints), app-sender.ts (signed commands,
 * clicks, shortcuts, submissions and events sent to the app; element-state.ts shapes what a
 * person chose), links.ts (links in message text, for unfurls), install.ts (the install page and
 * oauth.v2.access). One fake Slack may hold several workspaces (`addWorkspace`): the options
 * describe the first, and each added one answers through its own FakeSlack (`team(id)`).
 */
export class FakeSlack {
  private readonly workspace: Workspace;
  private readonly sender: AppSender;
  private readonly hub: FakeSlackHub;
  private readonly limits: Limits;
  private readonly held = new Set<() => void>();
  /** How many HTTP 429s this fake Slack has answered (any limit, or an arranged fault). */
  rateLimited = 0;
  private readonly deliveries = new WeakMap<FakeMessage, Promise<AppAnswer[]>>();
  private readonly pendingDeliveries = new Set<Promise<AppAnswer[]>>();

  /** `options` describe the first workspace (and the app); `addWorkspace` adds more. */
  constructor(
    private readonly options: FakeSlackOptions & WorkspaceIdentity,
    /** Internal: the shared part, when this is a workspace added to another fake Slack. */
    hub?: FakeSlackHub,
  ) {
    this.workspace = new Workspace(options);
    this.limits = new Limits(this.workspace, options);
    this.hub = hub ?? new FakeSlackHub(options.oauth, () => this.workspace.now(), options.appToken ?? null);
    if (!hub) this.hub.appUrl = options.appUrl ?? null;
    this.hub.teams.push(this);
    this.workspace.baseUrl = this.hub.baseUrl;
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

  /** Internal: the workspace's state, for the shared part. */
  get workspaceState(): Workspace {
    return this.workspace;
  }

  /** The app's signing secret, which every workspace's requests to the app are signed with. */
  get signingSecret(): string {
    return this.options.signingSecret;
  }

  get teamName(): string {
    return this.workspace.teamName;
  }

  /** The Enterprise Grid organisation of this workspace, or null. */
  get enterprise(): { id: string; name: string } | null {
    return this.workspace.enterprise;
  }

  /** The bot tokens that work in this workspace now (installs add one each; an uninstall takes them all). */
  get botTokens(): string[] {
    return [...this.workspace.tokens];
  }

  /** Whether the app is installed for this workspace's whole organisation. */
  get orgWideInstall(): boolean {
    return this.workspace.orgWideInstall;
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
    const { hub } = this;
    const server = createServer((incoming, outgoing) => {
      this.handle(incoming, outgoing).catch((error) => {
        outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify({ ok: false, error: 'fake_slack_failure', detail: String(error) }));
      });
    });
    server.on('upgrade', (incoming, socket, head) => hub.socketMode.upgrade(incoming, socket, head));
    // The workbench's page and Web API face a browser: a request trickling in is cut off.
    limitSlowClients(server);
    hub.server = server;
    await new Promise<void>((ready) => server.listen(port, host, ready));
    const address = server.address() as AddressInfo;
    hub.baseUrl = `http://${host}:${address.port}`;
    for (const team of hub.teams) team.workspace.baseUrl = hub.baseUrl;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.hub.server;
    if (!server) return;
    this.hub.socketMode.close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
    this.hub.server = null;
  }

  // The workspace, as the tests and the workbench read it.

  /**
   * What this workspace's Slack refused, oldest first: Web API calls answered `ok: false` (with
   * `error`) and response_url posts refused (`response_url.refused`), for a test to read or
   * expect none.
   */
  get refusals(): RecordedCall[] {
    return this.workspace.calls.filter(
      (call) => call.error !== undefined || call.method === 'response_url.refused',
    );
  }

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
   * A new response_url for a person in a channel, as Slack gives one with each command (for a test
   * that builds a command's body itself): usable 5 times within 30 minutes, like any other.
   */
  newResponseUrl(channel: string, userId: string): string {
    this.workspace.user(userId);
    return this.workspace.newResponseUrl(channel, userId);
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

  /** Whether a person is in a channel (everyone is, until `removeMember`). */
  isMember(channel: string, userId: string): boolean {
    return this.workspace.membersOf(channel).has(userId);
  }

  /** A person leaves a channel: an ephemeral message to them there is then `user_not_in_channel`. */
  removeMember(channel: string, userId: string): void {
    this.workspace.user(userId);
    this.workspace.membersOf(channel).delete(userId);
  }

  /** A person joins a channel again. */
  addMember(channel: string, userId: string): void {
    this.workspace.user(userId);
    this.workspace.membersOf(channel).add(userId);
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

  // HTTP: the Web API, response_url endpoints, and extra routes.

  private async handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const { hub } = this;
    let raw = '';
    for await (const chunk of incoming) raw += chunk;
    const url = new URL(incoming.url ?? '/', hub.baseUrl || 'http://127.0.0.1');
    const answer = (status: number, body: unknown) => {
      outgoing.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      outgoing.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith('/response/')) {
      const id = url.pathname.slice('/response/'.length);
      // The id ends with the team it belongs to (Workspace.newResponseUrl); older ones mean the first.
      const teamId = Buffer.from(id, 'base64url').toString('utf8').split('|')[4];
      const team = hub.teams.find((candidate) => candidate.teamId === teamId) ?? this;
      let body: unknown;
      try {
        body = JSON.parse(raw || '{}');
      } catch {
        answer(400, { ok: false, error: 'invalid_payload' });
        return;
      }
      const responded = respondAt(team.workspace, id, body);
      answer(responded.status, responded.body);
      return;
    }
    if (url.pathname === '/oauth/v2/authorize') {
      const page =
        incoming.method === 'POST'
          ? hub.install.decide(new URLSearchParams(raw))
          : hub.install.authorizePage(url.searchParams);
      outgoing.writeHead(page.status, {
        'content-type': page.contentType,
        'cache-control': 'no-store',
        ...(page.location ? { location: page.location } : {}),
      });
      outgoing.end(page.body);
      return;
    }
    if (!url.pathname.startsWith('/api/')) {
      for (const route of hub.extraRoutes) {
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
    if (method === 'apps.connections.open') {
      // The app-level token, not a workspace's: the app opens a Socket Mode connection.
      const appToken = /^Bearer (.+)$/.exec(incoming.headers.authorization ?? '')?.[1] ?? '';
      this.workspace.calls.push({ method, args: {} });
      answer(200, hub.socketMode.open(appToken, hub.baseUrl));
      return;
    }
    if (method === 'oauth.v2.access') {
      // No bot token yet: the app's own credentials and the code say who asks.
      const { client_secret: _secret, ...shown } = args;
      this.workspace.calls.push({ method, args: shown });
      answer(200, hub.install.exchange(args, incoming.headers.authorization));
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(incoming.headers.authorization ?? '')?.[1];
    const token = bearer ?? (typeof args.token === 'string' ? args.token : '');
    const team = hub.teamFor(token, args);
    if (method === 'auth.teams.list' && team) {
      // The workspaces an organisation-wide token acts in (one for a workspace's own token).
      team.workspace.calls.push({ method, args, token });
      const teams = hub.teams.filter((candidate) => candidate.workspace.tokens.has(token));
      answer(200, {
        ok: true,
        teams: teams.map((candidate) => ({ id: candidate.teamId, name: candidate.teamName })),
        response_metadata: { next_cursor: '' },
      });
      return;
    }
    // A call no workspace's token opens is recorded with the first workspace's, as before.
    await (team ?? this).answerCall(incoming, outgoing, method, args, token, team !== null);
  }

  /** A Web API call in this workspace: recorded with its token, then limited, faulted or carried out. */
  private async answerCall(
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    method: string,
    args: Record<string, unknown>,
    token: string,
    authorized: boolean,
  ): Promise<void> {
    const answer = (status: number, body: unknown) => {
      outgoing.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      outgoing.end(JSON.stringify(body));
    };
    const call: RecordedCall = { method, args, token };
    this.workspace.calls.push(call);
    if (this.limits.overRate()) {
      this.tooMany(outgoing, 1);
      return;
    }
    if (!authorized) {
      answer(200, { ok: false, error: this.hub.isRevoked(token) ? 'token_revoked' : 'invalid_auth' });
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
    const wait =
      method === 'chat.postMessage' ? this.limits.channelWait(args) : this.limits.historyWait(method);
    if (wait !== null) {
      this.tooMany(outgoing, wait);
      return;
    }
    const result = webApi(this.workspace, method, args);
    if (result.ok === false) call.error = String(result.error);
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
