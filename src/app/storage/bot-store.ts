import { openSqlite, type SqliteDatabase, StatementCache } from '../../shared/sqlite.ts';

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
  attemptAt: Date | null;
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

/**
 * The bot's own storage, behind one small asynchronous interface so another database (PostgreSQL
 * next) can take its place. Every implementation must pass test/app/storage/bot-store-contract.ts.
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
  /** Marks part `part` as being sent (before the call to Slack) and renews the lease; false when lost. */
  markAttempt(id: string, owner: string, part: number, now: Date, leaseMs: number): Promise<boolean>;
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
   * delivered items. Another team's data is untouched.
   */
  removeWorkspace(teamId: string): Promise<RemovedWorkspace>;
  /** Every stored secret (key rotation). */
  listSecrets(): Promise<StoredSecret[]>;
  /** Compare-and-set: replaces the secret with `next` only if it is still `secret.encrypted`; false when it changed meanwhile or is gone. */
  replaceSecret(secret: StoredSecret, next: string): Promise<boolean>;
  close(): Promise<void>;
}

export const BOT_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE workspaces (
    team_id TEXT PRIMARY KEY,
    encrypted_api_key TEXT NOT NULL,
    service_url TEXT,
    connected_by TEXT NOT NULL,
    connected_at TEXT NOT NULL
  );
  `,
  // Requests already acted on (signatures and event ids), until the time a replay could still pass.
  `
  CREATE TABLE seen_requests (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX seen_requests_expiry ON seen_requests (expires_at);
  `,
  // States too big for a Slack value; who wrote each comment; every message showing a pipeline.
  `
  CREATE TABLE kept_states (
    token TEXT PRIMARY KEY,
    json TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX kept_states_expiry ON kept_states (expires_at);
  CREATE TABLE comment_authors (
    team_id TEXT NOT NULL,
    comment_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (team_id, comment_id)
  );
  CREATE TABLE pipeline_messages (
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    ts TEXT NOT NULL,
    pipeline_id TEXT NOT NULL,
    thread_ts TEXT,
    remembered_at INTEGER NOT NULL,
    PRIMARY KEY (team_id, channel_id, ts)
  );
  CREATE INDEX pipeline_messages_by_pipeline ON pipeline_messages (team_id, pipeline_id);
  `,
  // Channels Tenderbot has greeted (the welcome is posted once per channel).
  `
  CREATE TABLE welcomed_channels (
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    welcomed_at TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id)
  );
  `,
  // Channel subscriptions, each delivery of one (one per subscription and due time, so two copies
  // of the app plan it once), and the items each subscription has posted (a tender once).
  `
  CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY,
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    cadence TEXT NOT NULL,
    local_time TEXT NOT NULL,
    time_zone TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    paused_reason TEXT,
    next_run_at INTEGER NOT NULL,
    cursor TEXT,
    cursor_at INTEGER,
    skipped_count INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX subscriptions_by_channel ON subscriptions (team_id, channel_id);
  CREATE INDEX subscriptions_due ON subscriptions (next_run_at) WHERE paused_reason IS NULL;
  CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    subscription_id TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    team_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    due_at INTEGER NOT NULL,
    manual INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL,
    lease_owner TEXT,
    lease_until INTEGER,
    not_before INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    frozen TEXT,
    posted_ts TEXT NOT NULL DEFAULT '[]',
    attempting_part INTEGER,
    attempt_at INTEGER,
    outcome TEXT,
    UNIQUE (subscription_id, due_at)
  );
  CREATE INDEX deliveries_open ON deliveries (state, not_before) WHERE state IN ('pending', 'working');
  CREATE INDEX deliveries_by_channel ON deliveries (team_id, channel_id) WHERE state IN ('pending', 'working');
  CREATE TABLE delivered_items (
    subscription_id TEXT NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    item_key TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    PRIMARY KEY (subscription_id, item_key)
  );
  CREATE INDEX delivered_items_by_delivery ON delivered_items (delivery_id);
  `,
  // A feed post lists every new tender behind "and N more" (its line kept with the item, in
  // order, rather than in the frozen post); finished deliveries are pruned by due time.
  `
  ALTER TABLE delivered_items ADD COLUMN position INTEGER;
  ALTER TABLE delivered_items ADD COLUMN listing TEXT;
  CREATE INDEX delivered_items_listing ON delivered_items (delivery_id, position) WHERE listing IS NOT NULL;
  CREATE INDEX deliveries_finished ON deliveries (due_at) WHERE state IN ('sent', 'empty', 'failed');
  `,
  // Seen requests without a rowid or an expiry index: every signed request writes one row, and this
  // halves that write (the table holds five minutes of requests, so pruning reads it all cheaply).
  `
  CREATE TABLE seen_requests_keyed (
    id TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO seen_requests_keyed (id, expires_at) SELECT id, expires_at FROM seen_requests;
  DROP TABLE seen_requests;
  ALTER TABLE seen_requests_keyed RENAME TO seen_requests;
  `,
  // Installations from the "Add to Slack" flow (one per workspace, or one org-wide per enterprise:
  // install_key says which), people's own keys, and workspace settings.
  `
  CREATE TABLE installations (
    install_key TEXT PRIMARY KEY,
    team_id TEXT,
    enterprise_id TEXT,
    is_enterprise_install INTEGER NOT NULL,
    encrypted_installation TEXT NOT NULL,
    installed_at INTEGER NOT NULL
  );
  CREATE TABLE personal_keys (
    team_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    encrypted_api_key TEXT NOT NULL,
    service_url TEXT,
    connected_at INTEGER NOT NULL,
    PRIMARY KEY (team_id, user_id)
  );
  CREATE TABLE workspace_settings (
    team_id TEXT PRIMARY KEY,
    personal_keys_for_writes INTEGER NOT NULL
  );
  `,
];

interface WorkspaceRow {
  team_id: string;
  encrypted_api_key: string;
  service_url: string | null;
  connected_by: string;
  connected_at: string;
}

interface PipelineMessageRow {
  team_id: string;
  channel_id: string;
  ts: string;
  pipeline_id: string;
  thread_ts: string | null;
}

/** SQLite answers synchronously; the interface is asynchronous so a networked database fits it too. */
/** How often expired remembered requests are deleted (they are ignored once expired anyway). */
const SEEN_REQUESTS_PRUNE_MS = 60_000;

export class SqliteBotStore implements BotStore {
  private readonly statements: StatementCache;
  private lastPruneMs = 0;

  constructor(private readonly db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  async getConnection(teamId: string): Promise<WorkspaceConnection | null> {
    const row = this.statements.get<WorkspaceRow>('SELECT * FROM workspaces WHERE team_id = ?', [teamId]);
    return row ? toConnection(row) : null;
  }

  async listConnections(): Promise<WorkspaceConnection[]> {
    return this.statements
      .all<WorkspaceRow>('SELECT * FROM workspaces ORDER BY team_id', [])
      .map(toConnection);
  }

  async rememberRequest(id: string, expiresAt: Date, now = new Date()): Promise<boolean> {
    // One statement, so atomic across processes on the file: new, or replacing an expired entry.
    const fresh =
      this.statements.run(
        `INSERT INTO seen_requests (id, expires_at) VALUES (?, ?)
         ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at WHERE seen_requests.expires_at <= ?`,
        [id, expiresAt.getTime(), now.getTime()],
      ).changes > 0;
    // Every request is remembered: pruning on each would cost a write transaction per request.
    if (now.getTime() - this.lastPruneMs >= SEEN_REQUESTS_PRUNE_MS) {
      this.lastPruneMs = now.getTime();
      this.statements.run('DELETE FROM seen_requests WHERE expires_at <= ?', [now.getTime()]);
    }
    return fresh;
  }

  async saveConnection(connection: WorkspaceConnection): Promise<void> {
    this.statements.run(
      `INSERT INTO workspaces (team_id, encrypted_api_key, service_url, connected_by, connected_at)
       VALUES (@teamId, @encryptedApiKey, @serviceUrl, @connectedBy, @connectedAt)
       ON CONFLICT (team_id) DO UPDATE SET encrypted_api_key = excluded.encrypted_api_key,
         service_url = excluded.service_url, connected_by = excluded.connected_by, connected_at = excluded.connected_at`,
      connection,
    );
  }

  async removeConnection(teamId: string): Promise<boolean> {
    return this.statements.run('DELETE FROM workspaces WHERE team_id = ?', [teamId]).changes > 0;
  }

  async saveState(token: string, json: string, expiresAt: Date): Promise<void> {
    this.db
      .transaction(() => {
        // Expired states are pruned as new ones are kept, so the table stays the size of 30 days' use.
        this.statements.run('DELETE FROM kept_states WHERE expires_at <= ?', [Date.now()]);
        this.statements.run(
          `INSERT INTO kept_states (token, json, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (token) DO UPDATE SET json = excluded.json, expires_at = excluded.expires_at`,
          [token, json, expiresAt.getTime()],
        );
      })
      .immediate();
  }

  async loadState(token: string, now: Date): Promise<string | null> {
    const row = this.statements.get<{ json: string }>(
      'SELECT json FROM kept_states WHERE token = ? AND expires_at > ?',
      [token, now.getTime()],
    );
    return row?.json ?? null;
  }

  async recordCommentAuthor(author: CommentAuthor): Promise<void> {
    this.statements.run(
      `INSERT OR IGNORE INTO comment_authors (team_id, comment_id, user_id, created_at) VALUES (?, ?, ?, ?)`,
      [author.teamId, author.commentId, author.userId, author.createdAt.toISOString()],
    );
  }

  async commentAuthors(teamId: string, commentIds: readonly string[]): Promise<Map<string, string>> {
    const authors = new Map<string, string>();
    // Chunks keep each statement well under SQLite's bound-parameter limit; few shapes are prepared.
    for (let start = 0; start < commentIds.length; start += 100) {
      const chunk = commentIds.slice(start, start + 100);
      const rows = this.statements.all<{ comment_id: string; user_id: string }>(
        `SELECT comment_id, user_id FROM comment_authors
         WHERE team_id = ? AND comment_id IN (${chunk.map(() => '?').join(', ')})`,
        [teamId, ...chunk],
      );
      for (const row of rows) authors.set(row.comment_id, row.user_id);
    }
    return authors;
  }

  async rememberPipelineMessage(message: PipelineMessage): Promise<void> {
    this.statements.run(
      `INSERT INTO pipeline_messages (team_id, channel_id, ts, pipeline_id, thread_ts, remembered_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (team_id, channel_id, ts) DO UPDATE SET pipeline_id = excluded.pipeline_id,
         thread_ts = excluded.thread_ts`,
      [
        message.teamId,
        message.channelId,
        message.ts,
        message.pipelineId,
        message.threadTs ?? null,
        Date.now(),
      ],
    );
  }

  async pipelineMessages(teamId: string, pipelineId: string): Promise<PipelineMessage[]> {
    return this.statements
      .all<PipelineMessageRow>(
        `SELECT * FROM pipeline_messages WHERE team_id = ? AND pipeline_id = ?
         ORDER BY remembered_at, channel_id, ts`,
        [teamId, pipelineId],
      )
      .map((row) => ({
        pipelineId: row.pipeline_id,
        teamId: row.team_id,
        channelId: row.channel_id,
        ts: row.ts,
        ...(row.thread_ts ? { threadTs: row.thread_ts } : {}),
      }));
  }

  async forgetPipelineMessage(teamId: string, channelId: string, ts: string): Promise<boolean> {
    return (
      this.statements.run('DELETE FROM pipeline_messages WHERE team_id = ? AND channel_id = ? AND ts = ?', [
        teamId,
        channelId,
        ts,
      ]).changes > 0
    );
  }

  async markChannelWelcomed(teamId: string, channelId: string, at: Date): Promise<boolean> {
    return (
      this.statements.run(
        'INSERT OR IGNORE INTO welcomed_channels (team_id, channel_id, welcomed_at) VALUES (?, ?, ?)',
        [teamId, channelId, at.toISOString()],
      ).changes > 0
    );
  }

  // Channel subscriptions (see the interface for what each step guarantees).

  async createSubscription(subscription: Subscription): Promise<boolean> {
    return (
      this.statements.run(
        `INSERT INTO subscriptions (id, team_id, channel_id, kind, target, cadence, local_time, time_zone,
           created_by, created_at, paused_reason, next_run_at, cursor, skipped_count)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
        [
          subscription.id,
          subscription.teamId,
          subscription.channelId,
          subscription.kind,
          subscription.target,
          subscription.cadence,
          subscription.localTime,
          subscription.timeZone,
          subscription.createdBy,
          subscription.createdAt.getTime(),
          subscription.pausedReason,
          subscription.nextRunAt.getTime(),
          subscription.cursor,
          subscription.skippedCount,
        ],
      ).changes > 0
    );
  }

  async getSubscription(teamId: string, id: string): Promise<Subscription | null> {
    const row = this.statements.get<SubscriptionRow>(
      'SELECT * FROM subscriptions WHERE team_id = ? AND id = ?',
      [teamId, id],
    );
    return row ? toSubscription(row) : null;
  }

  async channelSubscriptions(teamId: string, channelId: string): Promise<Subscription[]> {
    return this.statements
      .all<SubscriptionRow>(
        'SELECT * FROM subscriptions WHERE team_id = ? AND channel_id = ? ORDER BY created_at, id',
        [teamId, channelId],
      )
      .map(toSubscription);
  }

  async removeSubscription(teamId: string, id: string): Promise<boolean> {
    // Its deliveries and posted items go with it (ON DELETE CASCADE).
    return (
      this.statements.run('DELETE FROM subscriptions WHERE team_id = ? AND id = ?', [teamId, id]).changes > 0
    );
  }

  async pauseChannel(teamId: string, channelId: string, reason: string): Promise<Subscription[]> {
    return this.db
      .transaction(() => {
        const paused = this.statements
          .all<SubscriptionRow>(
            `UPDATE subscriptions SET paused_reason = ?
             WHERE team_id = ? AND channel_id = ? AND paused_reason IS NULL RETURNING *`,
            [reason, teamId, channelId],
          )
          .map(toSubscription);
        const ids = JSON.stringify(paused.map((subscription) => subscription.id));
        // What was reserved for posts that will not happen is free again when the channel resumes.
        this.statements.run(
          `DELETE FROM delivered_items WHERE delivery_id IN (SELECT id FROM deliveries
             WHERE subscription_id IN (SELECT value FROM json_each(?)) AND state = 'pending')`,
          [ids],
        );
        this.statements.run(
          `UPDATE deliveries SET state = 'failed', outcome = ?
           WHERE subscription_id IN (SELECT value FROM json_each(?)) AND state = 'pending'`,
          [`paused: ${reason}`, ids],
        );
        return paused;
      })
      .immediate();
  }

  async resumeSubscription(teamId: string, id: string, nextRunAt: Date): Promise<boolean> {
    return (
      this.statements.run(
        `UPDATE subscriptions SET paused_reason = NULL, next_run_at = ?
         WHERE team_id = ? AND id = ? AND paused_reason IS NOT NULL`,
        [nextRunAt.getTime(), teamId, id],
      ).changes > 0
    );
  }

  async dueSubscriptions(now: Date, limit: number): Promise<Subscription[]> {
    return this.statements
      .all<SubscriptionRow>(
        `SELECT * FROM subscriptions WHERE paused_reason IS NULL AND next_run_at <= ?
         ORDER BY next_run_at, id LIMIT ?`,
        [now.getTime(), limit],
      )
      .map(toSubscription);
  }

  async planDelivery(
    subscriptionId: string,
    expectedNextRunAt: Date,
    nextRunAt: Date,
    skipped: number,
    delivery: { id: string; dueAt: Date },
  ): Promise<boolean> {
    return this.db
      .transaction(() => this.planOne({ subscriptionId, expectedNextRunAt, nextRunAt, skipped, delivery }))
      .immediate();
  }

  async planDeliveries(plans: readonly PlannedDelivery[]): Promise<number> {
    return this.db.transaction(() => plans.filter((plan) => this.planOne(plan)).length).immediate();
  }

  /** The compare-and-set of next_run_at and the delivery's insert (inside a transaction). */
  private planOne({
    subscriptionId,
    expectedNextRunAt,
    nextRunAt,
    skipped,
    delivery,
  }: PlannedDelivery): boolean {
    const moved = this.statements.run(
      `UPDATE subscriptions SET next_run_at = ?, skipped_count = skipped_count + ?
       WHERE id = ? AND next_run_at = ? AND paused_reason IS NULL`,
      [nextRunAt.getTime(), skipped, subscriptionId, expectedNextRunAt.getTime()],
    ).changes;
    if (moved === 0) return false;
    this.statements.run(
      `INSERT INTO deliveries (id, subscription_id, team_id, channel_id, due_at, manual, state, not_before)
       SELECT ?, id, team_id, channel_id, ?, 0, 'pending', ? FROM subscriptions WHERE id = ?
       ON CONFLICT (subscription_id, due_at) DO NOTHING`,
      [delivery.id, delivery.dueAt.getTime(), delivery.dueAt.getTime(), subscriptionId],
    );
    return true;
  }

  async addManualDelivery(delivery: { id: string; subscriptionId: string; dueAt: Date }): Promise<boolean> {
    return (
      this.statements.run(
        `INSERT INTO deliveries (id, subscription_id, team_id, channel_id, due_at, manual, state, not_before)
         SELECT ?, id, team_id, channel_id, ?, 1, 'pending', ? FROM subscriptions WHERE id = ?
         ON CONFLICT DO NOTHING`,
        [delivery.id, delivery.dueAt.getTime(), delivery.dueAt.getTime(), delivery.subscriptionId],
      ).changes > 0
    );
  }

  async claimDeliveries(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
    busyChannels: readonly string[],
    aheadMs = 0,
  ): Promise<Delivery[]> {
    // One statement: SQLite runs it as one write, so two copies of the app never claim one row.
    // A channel takes one delivery at a time, in order, and none while another copy is posting
    // there or a split post is half sent (its parts stay together).
    return this.statements
      .all<DeliveryRow>(
        `UPDATE deliveries SET state = 'working', lease_owner = @owner, lease_until = @until,
           attempts = attempts + 1
         WHERE id IN (
           SELECT id FROM (
             SELECT d.id, d.not_before, d.due_at,
               ROW_NUMBER() OVER (PARTITION BY d.team_id, d.channel_id ORDER BY d.due_at, d.id) AS place
             FROM deliveries d
             WHERE ((d.state = 'pending' AND d.not_before <= @ready)
                 OR (d.state = 'working' AND d.lease_until <= @now))
               AND d.channel_id NOT IN (SELECT value FROM json_each(@busy))
               AND NOT EXISTS (
                 SELECT 1 FROM deliveries o
                 WHERE o.team_id = d.team_id AND o.channel_id = d.channel_id AND o.id <> d.id
                   AND o.state IN ('pending', 'working')
                   AND ((o.state = 'working' AND o.lease_until > @now)
                     OR o.posted_ts <> '[]' OR o.attempting_part IS NOT NULL))
           )
           WHERE place = 1
           ORDER BY not_before, due_at, id
           LIMIT @limit
         )
         RETURNING *`,
        {
          owner,
          until: now.getTime() + leaseMs,
          now: now.getTime(),
          ready: now.getTime() + Math.max(0, aheadMs),
          busy: JSON.stringify(busyChannels),
          limit,
        },
      )
      .map(toDelivery)
      .sort((a, b) => a.notBefore.getTime() - b.notBefore.getTime() || a.dueAt.getTime() - b.dueAt.getTime());
  }

  async getDelivery(id: string): Promise<Delivery | null> {
    const row = this.statements.get<DeliveryRow>('SELECT * FROM deliveries WHERE id = ?', [id]);
    return row ? toDelivery(row) : null;
  }

  async subscriptionDeliveries(subscriptionId: string): Promise<Delivery[]> {
    return this.statements
      .all<DeliveryRow>('SELECT * FROM deliveries WHERE subscription_id = ? ORDER BY due_at, id', [
        subscriptionId,
      ])
      .map(toDelivery);
  }

  async freezeDelivery(
    id: string,
    owner: string,
    frozen: string,
    itemKeys: readonly string[],
    listings?: readonly (string | null)[],
  ): Promise<{ ok: true } | { ok: false; taken: string[]; lost: boolean }> {
    return this.db
      .transaction((): { ok: true } | { ok: false; taken: string[]; lost: boolean } => {
        const row = this.statements.get<{ subscription_id: string }>(
          `SELECT subscription_id FROM deliveries WHERE id = ? AND lease_owner = ? AND state = 'working'`,
          [id, owner],
        );
        if (!row) return { ok: false, taken: [], lost: true };
        if (itemKeys.length === 0) {
          this.statements.run('UPDATE deliveries SET frozen = ? WHERE id = ?', [frozen, id]);
          return { ok: true };
        }
        const keys = JSON.stringify(itemKeys);
        const taken = this.statements
          .all<{ item_key: string }>(
            `SELECT item_key FROM delivered_items WHERE subscription_id = ? AND delivery_id <> ?
               AND item_key IN (SELECT value FROM json_each(?))`,
            [row.subscription_id, id, keys],
          )
          .map((item) => item.item_key);
        if (taken.length > 0) return { ok: false, taken, lost: false };
        this.statements.run(
          `INSERT INTO delivered_items (subscription_id, item_key, delivery_id, position, listing)
           SELECT ?, json_extract(value, '$[0]'), ?, key, json_extract(value, '$[1]')
           FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
          [
            row.subscription_id,
            id,
            JSON.stringify(itemKeys.map((key, index) => [key, listings?.[index] ?? null])),
          ],
        );
        this.statements.run('UPDATE deliveries SET frozen = ? WHERE id = ?', [frozen, id]);
        return { ok: true };
      })
      .immediate();
  }

  async markAttempt(id: string, owner: string, part: number, now: Date, leaseMs: number): Promise<boolean> {
    return (
      this.statements.run(
        `UPDATE deliveries SET attempting_part = ?, attempt_at = ?, lease_until = ?
         WHERE id = ? AND lease_owner = ? AND state = 'working'`,
        [part, now.getTime(), now.getTime() + leaseMs, id, owner],
      ).changes > 0
    );
  }

  async recordPart(id: string, owner: string, part: number, ts: string): Promise<boolean> {
    // Appended only in its place: a part recorded twice (a late answer) changes nothing.
    return (
      this.statements.run(
        `UPDATE deliveries SET posted_ts = json_insert(posted_ts, '$[#]', ?), attempting_part = NULL
         WHERE id = ? AND lease_owner = ? AND state = 'working' AND json_array_length(posted_ts) = ?`,
        [ts, id, owner, part],
      ).changes > 0
    );
  }

  async releaseDelivery(id: string, owner: string, notBefore: Date, keepAttempt: boolean): Promise<boolean> {
    return (
      this.statements.run(
        `UPDATE deliveries SET state = 'pending', lease_owner = NULL, lease_until = NULL, not_before = ?,
           attempting_part = CASE WHEN ? THEN attempting_part ELSE NULL END
         WHERE id = ? AND lease_owner = ? AND state = 'working'`,
        [notBefore.getTime(), keepAttempt ? 1 : 0, id, owner],
      ).changes > 0
    );
  }

  async finishDelivery(id: string, owner: string, finish: DeliveryFinish): Promise<boolean> {
    return this.db
      .transaction(() => {
        // With its last part: appended only in its place (as recordPart), in the same row write.
        const row = finish.lastPart
          ? this.statements.get<{ subscription_id: string }>(
              `UPDATE deliveries SET posted_ts = json_insert(posted_ts, '$[#]', ?), state = ?, outcome = ?,
                 lease_until = NULL, attempting_part = NULL
               WHERE id = ? AND lease_owner = ? AND state = 'working' AND json_array_length(posted_ts) = ?
               RETURNING subscription_id`,
              [finish.lastPart.ts, finish.state, finish.outcome, id, owner, finish.lastPart.part],
            )
          : this.statements.get<{ subscription_id: string }>(
              `UPDATE deliveries SET state = ?, outcome = ?, lease_until = NULL, attempting_part = NULL
               WHERE id = ? AND lease_owner = ? AND state = 'working' RETURNING subscription_id`,
              [finish.state, finish.outcome, id, owner],
            );
        if (!row) return false;
        if (finish.state === 'failed')
          this.statements.run('DELETE FROM delivered_items WHERE delivery_id = ?', [id]);
        if (finish.cursor)
          this.statements.run(
            `UPDATE subscriptions SET cursor = ?, cursor_at = ?
             WHERE id = ? AND (cursor_at IS NULL OR cursor_at < ?)`,
            [finish.cursor.json, finish.cursor.at.getTime(), row.subscription_id, finish.cursor.at.getTime()],
          );
        if (finish.skippedSaid)
          this.statements.run(
            'UPDATE subscriptions SET skipped_count = MAX(0, skipped_count - ?) WHERE id = ?',
            [finish.skippedSaid, row.subscription_id],
          );
        return true;
      })
      .immediate();
  }

  async pruneDeliveries(before: Date): Promise<{ deliveries: number; items: number }> {
    // Which deliveries may go: the same condition for both tables, so no item outlives its delivery.
    const prunable = `SELECT d.id FROM deliveries d
      WHERE d.state IN ('sent', 'empty', 'failed') AND d.due_at < @before
        AND (d.state = 'failed' OR EXISTS (
          SELECT 1 FROM deliveries n WHERE n.subscription_id = d.subscription_id
            AND n.state IN ('sent', 'empty') AND n.due_at > d.due_at))`;
    return this.db
      .transaction(() => {
        const items = this.statements.run(`DELETE FROM delivered_items WHERE delivery_id IN (${prunable})`, {
          before: before.getTime(),
        }).changes;
        const deliveries = this.statements.run(`DELETE FROM deliveries WHERE id IN (${prunable})`, {
          before: before.getTime(),
        }).changes;
        return { deliveries, items };
      })
      .immediate();
  }

  async deliveredItems(subscriptionId: string, itemKeys: readonly string[]): Promise<Set<string>> {
    if (itemKeys.length === 0) return new Set();
    return new Set(
      this.statements
        .all<{ item_key: string }>(
          `SELECT item_key FROM delivered_items
           WHERE subscription_id = ? AND item_key IN (SELECT value FROM json_each(?))`,
          [subscriptionId, JSON.stringify(itemKeys)],
        )
        .map((row) => row.item_key),
    );
  }

  async deliveryListing(
    deliveryId: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; items: string[] } | null> {
    const known = this.statements.get<{ n: number }>(
      `SELECT (SELECT count(*) FROM delivered_items WHERE delivery_id = d.id AND listing IS NOT NULL) AS n
       FROM deliveries d WHERE d.id = ?`,
      [deliveryId],
    );
    if (!known) return null;
    const items = this.statements
      .all<{ listing: string }>(
        `SELECT listing FROM delivered_items WHERE delivery_id = ? AND listing IS NOT NULL
         ORDER BY position LIMIT ? OFFSET ?`,
        [deliveryId, Math.max(0, limit), Math.max(0, offset)],
      )
      .map((row) => row.listing);
    return { total: known.n, items };
  }

  // Installations, personal keys and settings (see the interface).

  async saveInstallation(installation: StoredInstallation): Promise<void> {
    this.statements.run(
      `INSERT INTO installations (install_key, team_id, enterprise_id, is_enterprise_install,
         encrypted_installation, installed_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (install_key) DO UPDATE SET team_id = excluded.team_id,
         enterprise_id = excluded.enterprise_id, is_enterprise_install = excluded.is_enterprise_install,
         encrypted_installation = excluded.encrypted_installation, installed_at = excluded.installed_at`,
      [
        installationKey(installation),
        installation.teamId,
        installation.enterpriseId,
        installation.isEnterpriseInstall ? 1 : 0,
        installation.encryptedInstallation,
        installation.installedAt.getTime(),
      ],
    );
  }

  async findInstallation(query: InstallationQuery): Promise<StoredInstallation | null> {
    for (const key of installationLookup(query)) {
      const row = this.statements.get<InstallationRow>('SELECT * FROM installations WHERE install_key = ?', [
        key,
      ]);
      if (row) return toInstallation(row);
    }
    return null;
  }

  async deleteInstallation(query: InstallationQuery): Promise<boolean> {
    const key = installationLookup(query)[0];
    if (key === undefined) return false;
    return this.statements.run('DELETE FROM installations WHERE install_key = ?', [key]).changes > 0;
  }

  async listInstallations(): Promise<StoredInstallation[]> {
    return this.statements
      .all<InstallationRow>('SELECT * FROM installations ORDER BY install_key', [])
      .map(toInstallation);
  }

  async savePersonalKey(key: PersonalKey): Promise<void> {
    this.statements.run(
      `INSERT INTO personal_keys (team_id, user_id, encrypted_api_key, service_url, connected_at)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (team_id, user_id) DO UPDATE SET encrypted_api_key = excluded.encrypted_api_key,
         service_url = excluded.service_url, connected_at = excluded.connected_at`,
      [key.teamId, key.userId, key.encryptedApiKey, key.serviceUrl, key.connectedAt.getTime()],
    );
  }

  async getPersonalKey(teamId: string, userId: string): Promise<PersonalKey | null> {
    const row = this.statements.get<PersonalKeyRow>(
      'SELECT * FROM personal_keys WHERE team_id = ? AND user_id = ?',
      [teamId, userId],
    );
    return row ? toPersonalKey(row) : null;
  }

  async removePersonalKey(teamId: string, userId: string): Promise<boolean> {
    return (
      this.statements.run('DELETE FROM personal_keys WHERE team_id = ? AND user_id = ?', [teamId, userId])
        .changes > 0
    );
  }

  async getWorkspaceSettings(teamId: string): Promise<WorkspaceSettings> {
    const row = this.statements.get<{ personal_keys_for_writes: number }>(
      'SELECT personal_keys_for_writes FROM workspace_settings WHERE team_id = ?',
      [teamId],
    );
    return { teamId, personalKeysForWrites: row?.personal_keys_for_writes === 1 };
  }

  async saveWorkspaceSettings(settings: WorkspaceSettings): Promise<void> {
    this.statements.run(
      `INSERT INTO workspace_settings (team_id, personal_keys_for_writes) VALUES (?, ?)
       ON CONFLICT (team_id) DO UPDATE SET personal_keys_for_writes = excluded.personal_keys_for_writes`,
      [settings.teamId, settings.personalKeysForWrites ? 1 : 0],
    );
  }

  async removeWorkspace(teamId: string): Promise<RemovedWorkspace> {
    return this.db
      .transaction((): RemovedWorkspace => {
        const byTeam = [teamId];
        const installations = this.statements.run('DELETE FROM installations WHERE install_key = ?', [
          installationKey({ teamId, enterpriseId: null, isEnterpriseInstall: false }),
        ]).changes;
        const connections = this.statements.run('DELETE FROM workspaces WHERE team_id = ?', byTeam).changes;
        const personalKeys = this.statements.run(
          'DELETE FROM personal_keys WHERE team_id = ?',
          byTeam,
        ).changes;
        this.statements.run('DELETE FROM workspace_settings WHERE team_id = ?', byTeam);
        // Deliveries and delivered items go with their subscriptions (ON DELETE CASCADE).
        const subscriptions = this.statements.run(
          'DELETE FROM subscriptions WHERE team_id = ?',
          byTeam,
        ).changes;
        return { installations, connections, personalKeys, subscriptions };
      })
      .immediate();
  }

  async listSecrets(): Promise<StoredSecret[]> {
    return this.statements.all<StoredSecret>(
      `SELECT 'connection' AS kind, team_id AS ref, encrypted_api_key AS encrypted FROM workspaces
       UNION ALL SELECT 'installation', install_key, encrypted_installation FROM installations
       UNION ALL SELECT 'personal-key', json_array(team_id, user_id), encrypted_api_key FROM personal_keys`,
      [],
    );
  }

  async replaceSecret(secret: StoredSecret, next: string): Promise<boolean> {
    const replace = (sql: string, ref: unknown[]) =>
      this.statements.run(sql, [next, ...ref, secret.encrypted]).changes > 0;
    switch (secret.kind) {
      case 'connection':
        return replace(
          'UPDATE workspaces SET encrypted_api_key = ? WHERE team_id = ? AND encrypted_api_key = ?',
          [secret.ref],
        );
      case 'installation':
        return replace(
          `UPDATE installations SET encrypted_installation = ?
           WHERE install_key = ? AND encrypted_installation = ?`,
          [secret.ref],
        );
      case 'personal-key':
        return replace(
          `UPDATE personal_keys SET encrypted_api_key = ?
           WHERE team_id = ? AND user_id = ? AND encrypted_api_key = ?`,
          personalKeyRef(secret.ref),
        );
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

interface SubscriptionRow {
  id: string;
  team_id: string;
  channel_id: string;
  kind: SubscriptionKind;
  target: string;
  cadence: Cadence;
  local_time: string;
  time_zone: string;
  created_by: string;
  created_at: number;
  paused_reason: string | null;
  next_run_at: number;
  cursor: string | null;
  skipped_count: number;
}

interface DeliveryRow {
  id: string;
  subscription_id: string;
  team_id: string;
  channel_id: string;
  due_at: number;
  manual: number;
  state: DeliveryState;
  lease_owner: string | null;
  lease_until: number | null;
  not_before: number;
  attempts: number;
  frozen: string | null;
  posted_ts: string;
  attempting_part: number | null;
  attempt_at: number | null;
  outcome: string | null;
}

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    teamId: row.team_id,
    channelId: row.channel_id,
    kind: row.kind,
    target: row.target,
    cadence: row.cadence,
    localTime: row.local_time,
    timeZone: row.time_zone,
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    pausedReason: row.paused_reason,
    nextRunAt: new Date(row.next_run_at),
    cursor: row.cursor,
    skippedCount: row.skipped_count,
  };
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    subscriptionId: row.subscription_id,
    teamId: row.team_id,
    channelId: row.channel_id,
    dueAt: new Date(row.due_at),
    manual: row.manual === 1,
    state: row.state,
    leaseOwner: row.lease_owner,
    leaseUntil: row.lease_until === null ? null : new Date(row.lease_until),
    notBefore: new Date(row.not_before),
    attempts: row.attempts,
    frozen: row.frozen,
    postedTs: JSON.parse(row.posted_ts) as string[],
    attemptingPart: row.attempting_part,
    attemptAt: row.attempt_at === null ? null : new Date(row.attempt_at),
    outcome: row.outcome,
  };
}

interface InstallationRow {
  install_key: string;
  team_id: string | null;
  enterprise_id: string | null;
  is_enterprise_install: number;
  encrypted_installation: string;
  installed_at: number;
}

interface PersonalKeyRow {
  team_id: string;
  user_id: string;
  encrypted_api_key: string;
  service_url: string | null;
  connected_at: number;
}

/** One row per workspace install, one per enterprise for an org-wide install. */
function installationKey(query: InstallationQuery): string {
  if (query.isEnterpriseInstall) {
    if (query.enterpriseId === null) throw new Error('an org-wide installation needs its enterprise id');
    return `enterprise:${query.enterpriseId}`;
  }
  if (query.teamId === null) throw new Error('a workspace installation needs its team id');
  return `team:${query.teamId}`;
}

/** The rows to look in, in order: the one the query names, then its enterprise's org-wide install. */
function installationLookup(query: InstallationQuery): string[] {
  const keys: string[] = [];
  if (query.isEnterpriseInstall ? query.enterpriseId !== null : query.teamId !== null)
    keys.push(installationKey(query));
  if (!query.isEnterpriseInstall && query.enterpriseId !== null)
    keys.push(installationKey({ ...query, isEnterpriseInstall: true }));
  return keys;
}

function toInstallation(row: InstallationRow): StoredInstallation {
  return {
    teamId: row.team_id,
    enterpriseId: row.enterprise_id,
    isEnterpriseInstall: row.is_enterprise_install === 1,
    encryptedInstallation: row.encrypted_installation,
    installedAt: new Date(row.installed_at),
  };
}

function toPersonalKey(row: PersonalKeyRow): PersonalKey {
  return {
    teamId: row.team_id,
    userId: row.user_id,
    encryptedApiKey: row.encrypted_api_key,
    serviceUrl: row.service_url,
    connectedAt: new Date(row.connected_at),
  };
}

/** A personal key's secret ref is `[teamId, userId]` as JSON. */
function personalKeyRef(ref: string): [string, string] {
  const parsed: unknown = JSON.parse(ref);
  if (!Array.isArray(parsed) || parsed.length !== 2 || !parsed.every((part) => typeof part === 'string'))
    throw new Error('not a personal key reference');
  return parsed as [string, string];
}

function toConnection(row: WorkspaceRow): WorkspaceConnection {
  return {
    teamId: row.team_id,
    encryptedApiKey: row.encrypted_api_key,
    serviceUrl: row.service_url,
    connectedBy: row.connected_by,
    connectedAt: row.connected_at,
  };
}

/** `sqlite:PATH` opens (and migrates) a SQLite file; other schemes are refused with a sentence. */
export function openBotStore(databaseUrl: string): BotStore {
  if (databaseUrl.startsWith('sqlite:')) {
    return new SqliteBotStore(openSqlite(databaseUrl.slice('sqlite:'.length), BOT_MIGRATIONS));
  }
  throw new Error(`DATABASE_URL ${databaseUrl.split(':')[0]}: is not supported yet; use sqlite:PATH`);
}
