/** The fake Slack's data shapes and its default workspace (users and channels). */
import type { IncomingHttpHeaders } from 'node:http';

export interface FakeUser {
  id: string;
  name: string;
  realName: string;
  isAdmin?: boolean;
  isOwner?: boolean;
  /** A guest: multi-channel (restricted) or single-channel (ultra-restricted). */
  isRestricted?: boolean;
  isUltraRestricted?: boolean;
  /** The person's time zone (IANA), as `users.info` gives it; Europe/London when not set. */
  tz?: string;
}

export interface FakeChannel {
  id: string;
  name: string;
  /** A private channel (`is_private`); public when not set. */
  isPrivate?: boolean;
}

/** A link preview the app gave with `chat.unfurl`: an attachment, usually `{ blocks }`. */
// biome-ignore lint/suspicious/noExplicitAny: loose attachment JSON as sent.
export type Unfurl = Record<string, any>;

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
  /**
   * The response_url this message was posted through (an answer to that command or click); absent
   * for a Web API post. A test takes the answer to its own command by it, never a late answer to
   * an earlier click that happened to arrive first.
   */
  postedThrough?: string;
  deleted: boolean;
  /** Message metadata (`{ event_type, event_payload }`) as the app sent it, kept as Slack keeps it. */
  // biome-ignore lint/suspicious/noExplicitAny: loose JSON as sent.
  metadata?: any;
  /** Link previews the app attached with `chat.unfurl`, by URL. */
  unfurls?: Record<string, Unfurl>;
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
  /** The token the call carried (Authorization: Bearer, or a `token` argument). */
  token?: string;
  // biome-ignore lint/suspicious/noExplicitAny: Web API arguments as received.
  args: Record<string, any>;
  /** Slack's error when it refused the call (`ok: false`), as answered. */
  error?: string;
}

/** A request as sent to the app: the exact bytes and headers, so a test can send it again. */
export interface SentRequest {
  body: Buffer;
  headers: Record<string, string>;
}

export interface AppAnswer {
  status: number;
  /** The response_url the request carried (a command's, a click's), for answerTo. */
  responseUrl?: string;
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
  /**
   * The workspace's clock (epoch ms; Date.now by default): message `ts`, rate-limit windows,
   * event times and `users.info` time-zone offsets follow it. Trigger ids and request
   * signatures stay on real time, since the app checks those against its own clock.
   */
  clock?: () => number;
  /**
   * Slack's special limit on `chat.postMessage`: accepted posts per channel per second of the
   * clock (Slack allows about 1). Off by default. Over it: HTTP 429, `Retry-After`, nothing stored.
   */
  postsPerSecondPerChannel?: number;
  /**
   * Serve `conversations.history` and `.replies` as Slack serves a Marketplace (or internal) app:
   * up to 999 messages a call (100 by default) and no one-a-minute limit. Off by default: the app
   * is commercially distributed outside the Marketplace, so since Slack's changelog of 2025-05-29
   * it gets at most 15 messages a call and about one call a minute per workspace, HTTP 429 beyond.
   */
  marketplaceApp?: boolean;
  /** The app's unfurl domains (manifest `unfurl_domains`): a person's link to one sends `link_shared`. */
  unfurlDomains?: string[];
  /**
   * The app's app-level token (`xapp-…`, scope `connections:write`): with it the app may open
   * Socket Mode connections (`apps.connections.open`). None by default.
   */
  appToken?: string;
  /** The app's OAuth credentials, for the install page and `oauth.v2.access`; no installs without. */
  oauth?: FakeOAuthApp;
}

/**
 * A fault a test arranges for the next matching Web API call (`failNext`):
 * - `ratelimit`: HTTP 429 with `Retry-After`, the call not carried out (`times` calls, default 1);
 * - `drop-answer`: the call is carried out, then the connection is cut with no answer, as when
 *   Slack's answer is lost on the way;
 * - `hold`: the call is carried out and its answer held until `releaseHeld()` or the caller
 *   hangs up (a test can stop the app between sending and recording);
 * - `error`: Slack's `{ ok: false, error }`, the call not carried out.
 */
export type Fault =
  | { kind: 'ratelimit'; retryAfterSeconds?: number; times?: number }
  | { kind: 'drop-answer'; times?: number }
  | { kind: 'hold'; times?: number }
  | { kind: 'error'; error: string; times?: number };

/**
 * Restricts a fault to calls about one channel (the `channel` argument, a user id or its DM), or
 * about one person (a call with a `user` argument and no channel, such as users.info).
 */
export interface FaultMatch {
  channel?: string;
}

/** The bot's own user id in the fake workspace. */
export const BOT_USER_ID = 'U0BOT';
/** Slackbot, who answers for Slack itself (an unknown command, a command that failed); Slack's own id. */
export const SLACKBOT_USER_ID = 'USLACKBOT';

export const DEFAULT_USERS: FakeUser[] = [
  { id: 'U0ADMIN', name: 'ada', realName: 'Ada Admin', isAdmin: true },
  { id: 'U0MEMBER', name: 'max', realName: 'Max Member' },
  { id: 'U0GUEST', name: 'gus', realName: 'Gus Guest', isRestricted: true },
];
export const DEFAULT_CHANNELS: FakeChannel[] = [
  { id: 'C0BIDS', name: 'bids' },
  { id: 'C0GENERAL', name: 'general' },
];

/** The app as Slack's app settings know it: its credentials and the redirect URLs it may use. */
export interface FakeOAuthApp {
  clientId: string;
  clientSecret: string;
  /** `oauth_config.redirect_urls`: when set, a redirect_uri must start with one of them. */
  redirectUrls?: string[];
}
