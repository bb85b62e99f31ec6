import { openPostgresBotDatabase, openSqliteBotDatabase } from './bot-database.ts';
import { KyselyBotStore } from './kysely-bot-store.ts';

/** What the bot keeps about a workspace; the key only ever encrypted. */
export interface WorkspaceConnection {
  teamId: string;
  encryptedApiKey: string;
  serviceUrl: string | null;
  connectedBy: string;
  connectedAt: string;
}

/** Which Slack person wrote a comment Tenderbot created (the service only knows the key's creator). */
export interface CommentAuthor {
  commentId: string;
  teamId: string;
  userId: string;
  createdAt: Date;
}

/** A message that shows a pipeline's card, so a change can redraw every copy. */
export interface PipelineMessage {
  pipelineId: string;
  teamId: string;
  channelId: string;
  ts: string;
  threadTs?: string;
}

/** How often a subscription posts; weekly is on Mondays (a bid team plans its week on Monday). */
export type Cadence = 'hourly' | 'daily' | 'weekly';
export type SubscriptionKind = 'pipeline' | 'search' | 'deadlines';

/** A channel's subscription to scheduled posts (src/app/subscriptions/). */
export interface Subscription {
  /** Short and readable (`s-7k2m9q`): people type it in `/tender unsubscribe`. */
  id: string;
  teamId: string;
  channelId: string;
  kind: SubscriptionKind;
  /** What it follows, as JSON (a pipeline id, a search, a number of days). */
  target: string;
  cadence: Cadence;
  /** `HH:MM` in `timeZone` (hourly ones post on the hour). */
  localTime: string;
  /** The subscriber's IANA time zone, from users.info when they subscribed. */
  timeZone: string;
  createdBy: string;
  createdAt: Date;
  /** Why it no longer posts (the channel was archived, the app removed), or null. */
  pausedReason: string | null;
  nextRunAt: Date;
  /** JSON of what the last post covered (a search's window end, a pipeline's stages); null before the first. */
  cursor: string | null;
  /** Periods skipped while the app was not running that no post has mentioned yet. */
  skippedCount: number;
}

export type DeliveryState = 'pending' | 'working' | 'sent' | 'empty' | 'failed';

/**
 * One post of a subscription for one period (or one "Send now"). Claimed with a lease by one copy
 * of the app at a time; its content is frozen before the first part is sent, so whoever finishes
 * it posts the same thing, and each part is marked as being sent before the call to Slack.
 */
export interface Delivery {
  id: string;
  subscriptionId: string;
  teamId: string;
  channelId: string;
  dueAt: Date;
  /** Made by "Send now" rather than by the schedule. */
  manual: boolean;
  state: DeliveryState;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  /** Not to be claimed before this (a retry after a failure, Slack's Retry-After, the channel's pace). */
  notBefore: Date;
  attempts: number;
  /** JSON of the frozen content (parts, items, cursor after), or null before it is built. */
  frozen: string | null;
  /** The ts of each part Slack has accepted, in order. */
  postedTs: string[];
  /** The part being sent when the outcome became unknown (settled from history before any retry). */
  attemptingPart: number | null;
  /** When that part was sent, and when it could last have reached Slack: the window its ts is in. */
  attemptAt: Date | null;
  attemptUntil: Date | null;
  /**
   * Settling that part: the window's history was read from its end down to this message ts (the
   * next read's `latest`), null before the first read. Kept across Retry-After waits and copies.
   */
  settleLatest: string | null;
  outcome: string | null;
}

/** One subscription's next delivery, as planDelivery takes it. */
export interface PlannedDelivery {
  subscriptionId: string;
  expectedNextRunAt: Date;
  nextRunAt: Date;
  skipped: number;
  delivery: { id: string; dueAt: Date };
}

/** What finishing a delivery also records on its subscription. */
export interface DeliveryFinish {
  state: 'sent' | 'empty' | 'failed';
  outcome: string | null;
  /** The subscription's new cursor (what this post covered) and its instant; an older one never replaces a newer. */
  cursor?: { json: string; at: Date };
  /** Skipped periods this post mentioned (taken off the subscription's count). */
  skippedSaid?: number;
  /** The ts of its last part, recorded in the same step (as recordPart would: only in its place). */
  lastPart?: { part: number; ts: string };
}

/** A Slack installation as stored; the secret (Bolt's Installation object as JSON) encrypted by the caller with KeyCipher. */
export interface StoredInstallation {
  /** null for an org-wide (Enterprise Grid) install. */
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
  encryptedInstallation: string;
  installedAt: Date;
}

/** Which installation a request needs, as Bolt asks for it. */
export interface InstallationQuery {
  teamId: string | null;
  enterpriseId: string | null;
  isEnterpriseInstall: boolean;
}

/** A person's own service key (issue 13 item 2). */
export interface PersonalKey {
  teamId: string;
  userId: string;
  encryptedApiKey: string;
  serviceUrl: string | null;
  connectedAt: Date;
}

export interface WorkspaceSettings {
  teamId: string;
  personalKeysForWrites: boolean;
}

/** Which kind of stored secret (for key rotation). */
export type SecretKind = 'connection' | 'installation' | 'personal-key';

/** One stored secret; `ref` is an opaque id the store that listed it understands. */
export interface StoredSecret {
  kind: SecretKind;
  ref: string;
  encrypted: string;
}

/** How many rows removeWorkspace removed. */
export interface RemovedWorkspace {
  installations: number;
  connections: number;
  personalKeys: number;
  subscriptions: number;
}

/** A slash command to keep for the answer workers. */
export interface CommandToQueue {
  /** Time-ordered (UUIDv7-shaped): claims take the smallest first. */
  id: string;
  teamId: string | null;
  /** The command's fields as JSON. */
  body: string;
  receivedAt: Date;
  /** Stored already claimed by this worker, until `leaseUntil`. */
  owner?: string;
  leaseUntil?: Date;
}

/** A queued slash command, as an answer worker claimed it. */
export interface QueuedCommand {
  id: string;
  teamId: string | null;
  body: string;
  receivedAt: Date;
  /** This claim included. */
  attempts: number;
}

/**
 * The bot's own storage, behind one small asynchronous interface: KyselyBotStore on SQLite or
 * PostgreSQL. Every implementation must pass test/app/storage/bot-store-contract.ts.
 */
export interface BotStore {
  getConnection(teamId: string): Promise<WorkspaceConnection | null>;
  saveConnection(connection: WorkspaceConnection): Promise<void>;
  removeConnection(teamId: string): Promise<boolean>;
  /** Every stored connection (the start-up check that each key can still be decrypted). */
  listConnections(): Promise<WorkspaceConnection[]>;
  /**
   * Remembers a request (its signature, or an event id) until `expiresAt`; resolves true when it
   * was new, false when it was seen before. Shared by every copy of the app on the same store, so
   * a replay sent to another copy is refused too. Expired entries are pruned as it goes.
   */
  rememberRequest(id: string, expiresAt: Date, now?: Date): Promise<boolean>;
  /** A state too big for its Slack value (src/app/state/codec.ts), kept under its token until `expiresAt`. */
  saveState(token: string, json: string, expiresAt: Date): Promise<void>;
  /** The kept state, or null when unknown or expired. */
  loadState(token: string, now: Date): Promise<string | null>;
  /** Records the Slack person who wrote a comment; recording the same comment again keeps the first. */
  recordCommentAuthor(author: CommentAuthor): Promise<void>;
  /** comment id → Slack user id, for those of `commentIds` written through Tenderbot in this workspace. */
  commentAuthors(teamId: string, commentIds: readonly string[]): Promise<Map<string, string>>;
  /** Remembers a message showing a pipeline (the same channel and ts once). */
  rememberPipelineMessage(message: PipelineMessage): Promise<void>;
  /** Every message showing the pipeline in this workspace, oldest first. */
  pipelineMessages(teamId: string, pipelineId: string): Promise<PipelineMessage[]>;
  /** Forgets a message (deleted, or no longer reachable); true when it was known. */
  forgetPipelineMessage(teamId: string, channelId: string, ts: string): Promise<boolean>;

  // Channel subscriptions and their deliveries. Every method is one atomic step, so several copies
  // of the app on one database never plan, claim or record the same thing twice.

  /** Stores a new subscription; false when its id is taken (the caller picks another). */
  createSubscription(subscription: Subscription): Promise<boolean>;
  getSubscription(teamId: string, id: string): Promise<Subscription | null>;
  /** The channel's subscriptions, oldest first. */
  channelSubscriptions(teamId: string, channelId: string): Promise<Subscription[]>;
  /** Removes it with its deliveries still to come; true when it existed. */
  removeSubscription(teamId: string, id: string): Promise<boolean>;
  /**
   * Pauses every running subscription of a channel (archived, or the app removed) and fails its
   * deliveries still to come; resolves with those it paused now (none when already paused), so
   * only one copy of the app tells each subscriber.
   */
  pauseChannel(teamId: string, channelId: string, reason: string): Promise<Subscription[]>;
  /** Runs a paused subscription again from `nextRunAt`; true when it was paused. */
  resumeSubscription(teamId: string, id: string, nextRunAt: Date): Promise<boolean>;
  /** Running subscriptions whose next run is due, earliest first. */
  dueSubscriptions(now: Date, limit: number): Promise<Subscription[]>;
  /**
   * Moves a subscription's next run from `expectedNextRunAt` to `nextRunAt`, adds `skipped` to its
   * count, and plans `delivery` (one per subscription and due time), all or nothing; false when
   * another copy moved it first.
   */
  planDelivery(
    subscriptionId: string,
    expectedNextRunAt: Date,
    nextRunAt: Date,
    skipped: number,
    delivery: { id: string; dueAt: Date },
  ): Promise<boolean>;
  /** planDelivery for many subscriptions in one transaction (each moved and planned or not as alone); how many were planned. */
  planDeliveries(plans: readonly PlannedDelivery[]): Promise<number>;
  /** A delivery outside the schedule ("Send now"), due at once. */
  addManualDelivery(delivery: { id: string; subscriptionId: string; dueAt: Date }): Promise<boolean>;
  /**
   * Claims up to `limit` deliveries that are due (pending and not before `now`, or working with a
   * lease that ended), at most one per channel and none in a channel where another is under way or
   * half posted, leaving out `busyChannels`: one statement. They are leased to `owner` until
   * `now + leaseMs`. `aheadMs` also claims pending ones due that much later (the caller waits for
   * their time); a lease is only ever taken over once it has ended at `now`.
   */
  claimDeliveries(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
    busyChannels: readonly string[],
    aheadMs?: number,
  ): Promise<Delivery[]>;
  /**
   * claimDeliveries for one delivery (the job queue hands out ids), in one step: claimable when it
   * is pending and not before `now + aheadMs`, or working with a lease that ended at `now`; and it
   * is the first open delivery of its channel (by due time, then id) and no other there is under
   * way with a live lease or half posted. Claimed: returned working, leased to `owner` until
   * `now + leaseMs`. Finished or gone: `{ finished: true }`. Otherwise the earliest moment worth
   * trying again (its own time, or the lease or time of what holds its channel; a second from
   * `now` when nothing better is known).
   */
  claimDelivery(
    id: string,
    owner: string,
    now: Date,
    leaseMs: number,
    aheadMs: number,
  ): Promise<{ delivery: Delivery } | { finished: true } | { notBefore: Date }>;
  /** Ids of deliveries that could be claimed by `dueBy` (pending and due, or working with a lease ended), oldest first. */
  openDeliveryIds(dueBy: Date, limit: number): Promise<string[]>;
  getDelivery(id: string): Promise<Delivery | null>;
  /** Every delivery of a subscription, by due time (for the list, the tests and the benchmark). */
  subscriptionDeliveries(subscriptionId: string): Promise<Delivery[]>;
  /**
   * Freezes a delivery's content and reserves its items (once per subscription). If any of
   * `itemKeys` is already taken by another delivery nothing is written and those keys come back;
   * `lost` when the lease is no longer `owner`'s.
   */
  freezeDelivery(
    id: string,
    owner: string,
    frozen: string,
    itemKeys: readonly string[],
    /** A line kept with each item, by index (a feed's listing), for deliveryListing. */
    listings?: readonly (string | null)[],
  ): Promise<{ ok: true } | { ok: false; taken: string[]; lost: boolean }>;
  /**
   * Marks part `part` as being sent (before the call to Slack), with the window its ts will be in
   * (from `now` to `attemptUntil`, by default the lease's end), and renews the lease; false when lost.
   */
  markAttempt(
    id: string,
    owner: string,
    part: number,
    now: Date,
    leaseMs: number,
    attemptUntil?: Date,
  ): Promise<boolean>;
  /** Records how far down its window the history of the part being sent was read; false when the lease is lost. */
  recordSettleProgress(id: string, owner: string, latest: string): Promise<boolean>;
  /** Records the ts Slack gave part `part`; false when the lease is no longer `owner`'s. */
  recordPart(id: string, owner: string, part: number, ts: string): Promise<boolean>;
  /**
   * Gives a delivery back until `notBefore` (Slack's Retry-After, a retry after a failure, the
   * channel's pace); `keepAttempt` leaves the part marked as being sent, so that whoever takes it
   * next looks in the channel's history first.
   */
  releaseDelivery(id: string, owner: string, notBefore: Date, keepAttempt: boolean): Promise<boolean>;
  /** Finishes a delivery (and moves its subscription's cursor); false when the lease is no longer `owner`'s. */
  finishDelivery(id: string, owner: string, finish: DeliveryFinish): Promise<boolean>;
  /**
   * Deletes finished deliveries (sent, empty, failed) due before `before`, with the items they
   * posted, one statement per table, all or nothing. A sent or empty one goes only once a later
   * one of its subscription has finished (its window was moved past, so none of its items can
   * come back); the last post of a long-paused subscription is kept.
   */
  pruneDeliveries(before: Date): Promise<{ deliveries: number; items: number }>;
  /** The items a subscription has already posted (or reserved), of those given. */
  deliveredItems(subscriptionId: string, itemKeys: readonly string[]): Promise<Set<string>>;
  /**
   * One page of a feed delivery's listing (the tenders behind "and N more"), in the order they
   * were frozen, with the total; null when that delivery is not known (or pruned).
   */
  deliveryListing(
    deliveryId: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; items: string[] } | null>;
  /**
   * Records that Tenderbot greeted a channel; true only the first time for that channel (so the
   * welcome is posted once, also when the app is removed and added again). One atomic statement.
   */
  markChannelWelcomed(teamId: string, channelId: string, at: Date): Promise<boolean>;

  // Installations from the "Add to Slack" flow, personal keys and workspace settings (issue 13).

  /** Stores an installation, replacing the one of the same workspace (or the same org-wide install). */
  saveInstallation(installation: StoredInstallation): Promise<void>;
  /**
   * The installation a request needs: with `isEnterpriseInstall` the enterprise's org-wide one
   * (whichever of its workspaces asks), otherwise the workspace's own, falling back to its
   * enterprise's org-wide one (Bolt's semantics).
   */
  findInstallation(query: InstallationQuery): Promise<StoredInstallation | null>;
  /** Removes the installation the query names (no fallback); true when it existed. */
  deleteInstallation(query: InstallationQuery): Promise<boolean>;
  listInstallations(): Promise<StoredInstallation[]>;
  /** Stores a person's key, replacing theirs. */
  savePersonalKey(key: PersonalKey): Promise<void>;
  getPersonalKey(teamId: string, userId: string): Promise<PersonalKey | null>;
  removePersonalKey(teamId: string, userId: string): Promise<boolean>;
  /** The workspace's settings; the defaults (false) when never saved. */
  getWorkspaceSettings(teamId: string): Promise<WorkspaceSettings>;
  saveWorkspaceSettings(settings: WorkspaceSettings): Promise<void>;
  /**
   * Uninstall or tokens revoked: one transaction removing the team's (non-org-wide) installation,
   * its workspace connection, personal keys, settings, subscriptions with their deliveries and
   * delivered items, comment authors and pipeline messages. Only the markers of channels already
   * greeted stay (greeted once, also after a reinstall). Another team's data is untouched.
   */
  removeWorkspace(teamId: string): Promise<RemovedWorkspace>;
  /**
   * A slash command the receiver acknowledged, kept until an answer worker (ANSWER_WORKERS) has
   * answered it: acknowledged means stored, whatever happens to the copy that took it. With
   * `owner`, it is stored already claimed by that worker until `leaseUntil` (its first attempt).
   */
  queueCommand(command: CommandToQueue): Promise<void>;
  /**
   * Takes up to `limit` of the oldest queued commands that no worker holds (or whose holder's lease
   * ended) for `owner` until `now + leaseMs`, counting the attempt: each is taken by one worker,
   * whichever copy of the app asks. Oldest first.
   */
  claimCommands(owner: string, now: Date, leaseMs: number, limit: number): Promise<QueuedCommand[]>;
  /** Answered, or given up: removed from the queue. */
  finishCommands(ids: readonly string[]): Promise<void>;
  /** Extends the lease of what `owners` hold (live workers answering) to `until`. */
  renewCommands(owners: readonly string[], until: Date): Promise<void>;
  /** What `owner` holds is free to take at once (its worker died); resolves with how many. */
  releaseCommands(owner: string): Promise<number>;
  /** Commands waiting or being answered. */
  queuedCommandCount(): Promise<number>;
  /**
   * SQLite: the write-ahead log is copied into the database by a thread of its own rather than as
   * this process commits, so a checkpoint's fsync never stalls its event loop (the receiver's
   * process with ANSWER_WORKERS). PostgreSQL: nothing to do.
   */
  checkpointInBackground(): void;
  /** Every stored secret (key rotation). */
  listSecrets(): Promise<StoredSecret[]>;
  /** Compare-and-set: replaces the secret with `next` only if it is still `secret.encrypted`; false when it changed meanwhile or is gone. */
  replaceSecret(secret: StoredSecret, next: string): Promise<boolean>;
  /** A trivial query: resolves when the database answers (health checks), throws otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the bot's store: `sqlite:PATH` a SQLite file (created and migrated now; `sqlite::memory:`
 * a throwaway one), `postgres://…` a PostgreSQL database (migrated before its first query, which
 * waits for it). Other schemes are refused with a sentence.
 */
export function openBotStore(databaseUrl: string): BotStore {
  if (databaseUrl.startsWith('sqlite:')) {
    return new KyselyBotStore(openSqliteBotDatabase(databaseUrl.slice('sqlite:'.length)));
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return new KyselyBotStore(openPostgresBotDatabase(databaseUrl));
  }
  throw new Error(
    `DATABASE_URL ${databaseUrl.split(':')[0]}: is not supported; use sqlite:PATH or postgres://…`,
  );
}
