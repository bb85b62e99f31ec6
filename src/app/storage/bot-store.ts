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
  /**
   * Records that Tenderbot greeted a channel; true only the first time for that channel (so the
   * welcome is posted once, also when the app is removed and added again). One atomic statement.
   */
  markChannelWelcomed(teamId: string, channelId: string, at: Date): Promise<boolean>;
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

  async close(): Promise<void> {
    this.db.close();
  }
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
