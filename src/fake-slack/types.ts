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
  /** Message metadata (`{ event_type, event_payload }`) as the app sent it, kept as Slack keeps it. */
  // biome-ignore lint/suspicious/noExplicitAny: loose JSON as sent.
  metadata?: any;
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
