import { randomBytes } from 'node:crypto';
import {
  type Blocks,
  BOT_USER_ID,
  DEFAULT_CHANNELS,
  DEFAULT_USERS,
  type FakeChannel,
  type FakeMessage,
  type FakeSlackOptions,
  type FakeUser,
  type FakeView,
  type RecordedCall,
} from './types.ts';

const TRIGGER_LIFETIME_MS = 3000;

/** What tells one workspace of a fake Slack from another (defaults: the first workspace's). */
export interface WorkspaceIdentity {
  teamName?: string;
  domain?: string;
  enterprise?: { id: string; name: string } | null;
}

/** The fields every payload and event carries about where it comes from, as Slack sends them. */
export function enterpriseFields(workspace: Workspace): {
  enterprise: { id: string; name: string } | null;
  is_enterprise_install: boolean;
} {
  return { enterprise: workspace.enterprise, is_enterprise_install: workspace.orgWideInstall };
}

/**
 * The workspace's state: users, channels, messages, views, trigger ids and response_urls. The Web
 * API, the response_url endpoints and the sender to the app all read and change this one object.
 */
export class Workspace {
  readonly calls: RecordedCall[] = [];
  readonly messages: FakeMessage[] = [];
  readonly views = new Map<string, FakeView>();
  readonly users: FakeUser[];
  readonly channels: readonly FakeChannel[];
  private readonly channelsById: ReadonlyMap<string, FakeChannel>;
  readonly teamId: string;
  /** The workspace's name and its address's first word (`tenderbot-fake` in tenderbot-fake.slack.com). */
  readonly teamName: string;
  readonly domain: string;
  /** The Enterprise Grid organisation the workspace belongs to, or null for a stand-alone workspace. */
  readonly enterprise: { id: string; name: string } | null;
  /** Whether the app is installed for the whole organisation (Slack then says `is_enterprise_install`). */
  orgWideInstall = false;
  /** The bot tokens that act in this workspace (the first from the options; more with each install). */
  readonly tokens = new Set<string>();
  /** Tokens taken back by an uninstall or a revocation: they answer `token_revoked`. */
  readonly revokedTokens = new Set<string>();
  /**
   * When (epoch ms) a person last had this workspace open in the workbench, as a browser stays
   * signed in to the workspace last used: Slack's install page offers that one first.
   */
  lastVisitedAt: number | null = null;
  /** Where this fake Slack is served (`http://host:port`), once started. */
  baseUrl = '';
  private readonly triggers = new Map<string, { userId: string; expiresAt: number }>();
  /** The message a command's response_url posted last, by its id. */
  readonly postedThrough = new Map<string, FakeMessage>();
  private readonly members = new Map<string, Set<string>>();
  private tsCounter = 0;
  private responseUrlSerial = 0;
  /** The workspace's clock (epoch ms): the options' clock, moved on by `advanceClock`; trigger ids keep to real time. */
  readonly now: () => number;
  /** How far `advanceClock` moved the clock past the options' clock (ms). */
  clockOffsetMs = 0;
  /** Every response_url given out, by its id: when (clock ms) and how often it was used. */
  readonly responseUrls = new Map<string, { issuedAt: number; uses: number }>();
  /** Channels the app's bot user is in: every channel until a test removes it. */
  readonly botIn: Set<string>;
  /** History served as to a Marketplace app (`FakeSlackOptions.marketplaceApp`), not capped at 15. */
  readonly marketplaceApp: boolean;
  readonly archived = new Set<string>();
  /** What `chat.unfurl` can name a link preview by: an unfurl_id, for the message it belongs to. */
  readonly unfurlIds = new Map<string, FakeMessage>();
  /** The options the app last suggested for an external select, by view and action_id. */
  // biome-ignore lint/suspicious/noExplicitAny: option objects as the app sent them.
  readonly suggested = new Map<string, any[]>();

  constructor(options: FakeSlackOptions & WorkspaceIdentity) {
    this.users = options.users ?? DEFAULT_USERS;
    this.channels = options.channels ?? DEFAULT_CHANNELS;
    // Looked up on every post: thousands of channels in bench:digests made a scan cost each post.
    this.channelsById = new Map(this.channels.map((channel) => [channel.id, channel]));
    this.teamId = options.teamId ?? 'T0TENDER';
    this.teamName = options.teamName ?? 'Tenderbot Fake';
    this.domain = options.domain ?? 'tenderbot-fake';
    this.enterprise = options.enterprise ?? null;
    if (options.botToken) this.tokens.add(options.botToken);
    const clock = options.clock ?? Date.now;
    this.now = () => clock() + this.clockOffsetMs;
    this.botIn = new Set(this.channels.map((channel) => channel.id));
    this.marketplaceApp = options.marketplaceApp === true;
  }

  /**
   * Where a post to `channel` lands: a user id means that person's direct messages with the app
   * (`D` + user id), as Slack answers `chat.postMessage` to a user id with the DM's id.
   */
  resolveChannel(channel: string): string {
    return typeof channel === 'string' && /^[UW]/.test(channel) && this.users.some((u) => u.id === channel)
      ? `D${channel}`
      : channel;
  }

  /** The person a direct-message channel (`D` + user id) is with, or null for any other channel. */
  dmUser(channel: string): string | null {
    if (typeof channel !== 'string' || !channel.startsWith('D')) return null;
    const userId = channel.slice(1);
    return this.users.some((user) => user.id === userId) ? userId : null;
  }

  isMember(channel: string): boolean {
    return this.dmUser(channel) !== null || this.botIn.has(channel);
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

  /** The replies in a thread, oldest first (not the parent). */
  threadOf(channel: string, threadTs: string): FakeMessage[] {
    return this.messages.filter(
      (message) => message.channel === channel && message.threadTs === threadTs && !message.deleted,
    );
  }

  /** A message everyone sees, by channel and ts (what chat.update and chat.delete look up). */
  findMessage(channel: string, ts: string): FakeMessage | undefined {
    return this.messages.find((candidate) => candidate.channel === channel && candidate.ts === ts);
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

  /** A channel of the workspace, or a person's direct messages with the app. */
  hasChannel(id: string): boolean {
    return this.channelsById.has(id) || this.dmUser(id) !== null;
  }

  channel(id: string): FakeChannel {
    const dmUser = this.dmUser(id);
    if (dmUser) return { id, name: this.user(dmUser).name, isPrivate: true };
    return this.channelsById.get(id) ?? { id, name: id.toLowerCase() };
  }

  /** Who is in a channel: everyone at first; a person's DM with the app holds them and the bot. */
  membersOf(channel: string): Set<string> {
    let members = this.members.get(channel);
    if (!members) {
      const dmUser = this.dmUser(channel);
      members = new Set(dmUser ? [dmUser, BOT_USER_ID] : this.users.map((user) => user.id));
      this.members.set(channel, members);
    }
    return members;
  }

  /** Stores a new message (the bot's unless `authorId` is changed after). */
  postMessage(
    channel: string,
    text: string,
    blocks: Blocks,
    ephemeralTo: string | null,
    threadTs: string | null,
    // biome-ignore lint/suspicious/noExplicitAny: message metadata as sent.
    metadata?: any,
  ): FakeMessage {
    const ts = this.nextTs();
    const message: FakeMessage = {
      authorId: BOT_USER_ID,
      ts,
      channel,
      text,
      blocks,
      ephemeralTo,
      threadTs,
      responseUrl: this.newResponseUrl(channel, ephemeralTo ?? 'U0ANYONE', ts),
      deleted: false,
      ...(metadata ? { metadata } : {}),
    };
    this.messages.push(message);
    return message;
  }

  /** A response_url names its channel, user and (for a click) the message it belongs to. */
  newResponseUrl(channel: string, userId: string, messageTs = ''): string {
    // Each command and each click gets a URL of its own, as in Slack: two commands typed at once
    // must not replace each other's answers. The serial makes it unique; the rest says where it goes.
    this.responseUrlSerial++;
    // The team comes last: the server finds the workspace a response_url belongs to by it.
    const id = Buffer.from(
      `${channel}|${userId}|${messageTs}|${this.responseUrlSerial}|${this.teamId}`,
    ).toString('base64url');
    this.responseUrls.set(id, { issuedAt: this.now(), uses: 0 });
    return `${this.baseUrl}/response/${id}`;
  }

  /** A trigger_id, usable once within 3 s, as Slack's. */
  newTrigger(userId: string): string {
    const id = `${Date.now()}.${randomBytes(8).toString('hex')}`;
    this.triggers.set(id, { userId, expiresAt: Date.now() + TRIGGER_LIFETIME_MS });
    return id;
  }

  /** Uses up a trigger: its user, or Slack's error for an unknown or expired one. */
  takeTrigger(id: string): { userId: string } | { error: 'invalid_trigger_id' | 'expired_trigger_id' } {
    const trigger = this.triggers.get(id);
    this.triggers.delete(id);
    if (!trigger) return { error: 'invalid_trigger_id' };
    if (trigger.expiresAt < Date.now()) return { error: 'expired_trigger_id' };
    return { userId: trigger.userId };
  }

  /** A new, unique message ts at the clock's current second, as Slack's `seconds.micro`. */
  nextTs(): string {
    this.tsCounter++;
    return `${Math.floor(this.now() / 1000)}.${String(this.tsCounter).padStart(6, '0')}`;
  }

  newViewId(): string {
    return `V${randomBytes(5).toString('hex').toUpperCase()}`;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: walks loose Block Kit JSON.
export function findElement(blocks: Blocks, actionId: string): { element: any; blockId: string } | null {
  for (const block of blocks) {
    const candidates = [...(block.elements ?? []), block.accessory, block.element].filter(Boolean);
    for (const element of candidates) {
      if (element.action_id === actionId) return { element, blockId: block.block_id ?? '' };
    }
  }
  return null;
}

/** Orders two message ts (`seconds.fraction`) as Slack does: numerically, not as text. */
export function compareTs(a: string, b: string): number {
  const [aSeconds = '0', aFraction = ''] = a.split('.');
  const [bSeconds = '0', bFraction = ''] = b.split('.');
  const seconds = Number(aSeconds) - Number(bSeconds);
  if (seconds !== 0) return Math.sign(seconds);
  const width = Math.max(aFraction.length, bFraction.length);
  return Math.sign(Number(aFraction.padEnd(width, '0')) - Number(bFraction.padEnd(width, '0')));
}
