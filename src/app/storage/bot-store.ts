import { openDatabase, type SqliteDatabase } from '../../service/store/database.ts';
import { StatementCache } from '../../service/store/statement-cache.ts';

/** What the bot keeps about a workspace; the key only ever encrypted. */
export interface WorkspaceConnection {
  teamId: string;
  encryptedApiKey: string;
  serviceUrl: string | null;
  connectedBy: string;
  connectedAt: string;
}

/** The bot's own storage, behind one small interface so another database can take its place. */
export interface BotStore {
  getConnection(teamId: string): WorkspaceConnection | null;
  saveConnection(connection: WorkspaceConnection): void;
  removeConnection(teamId: string): boolean;
  /** Every stored connection (the start-up check that each key can still be decrypted). */
  listConnections(): Promise<WorkspaceConnection[]>;
  /**
   * Remembers a request (its signature, or an event id) until `expiresAt`; resolves true when it
   * was new, false when it was seen before. Shared by every copy of the app on the same store, so
   * a replay sent to another copy is refused too. Expired entries are pruned as it goes.
   */
  rememberRequest(id: string, expiresAt: Date, now?: Date): Promise<boolean>;
  close(): void;
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
];

interface WorkspaceRow {
  team_id: string;
  encrypted_api_key: string;
  service_url: string | null;
  connected_by: string;
  connected_at: string;
}

export class SqliteBotStore implements BotStore {
  private readonly statements: StatementCache;

  constructor(private readonly db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  getConnection(teamId: string): WorkspaceConnection | null {
    const row = this.statements.get<WorkspaceRow>('SELECT * FROM workspaces WHERE team_id = ?', [teamId]);
    return row ? toConnection(row) : null;
  }

  async listConnections(): Promise<WorkspaceConnection[]> {
    return this.statements
      .all<WorkspaceRow>('SELECT * FROM workspaces ORDER BY team_id', [])
      .map(toConnection);
  }

  async rememberRequest(id: string, expiresAt: Date, now = new Date()): Promise<boolean> {
    return this.db
      .transaction(() => {
        this.statements.run('DELETE FROM seen_requests WHERE expires_at <= ?', [now.getTime()]);
        return (
          this.statements.run('INSERT OR IGNORE INTO seen_requests (id, expires_at) VALUES (?, ?)', [
            id,
            expiresAt.getTime(),
          ]).changes > 0
        );
      })
      .immediate();
  }

  saveConnection(connection: WorkspaceConnection): void {
    this.statements.run(
      `INSERT INTO workspaces (team_id, encrypted_api_key, service_url, connected_by, connected_at)
       VALUES (@teamId, @encryptedApiKey, @serviceUrl, @connectedBy, @connectedAt)
       ON CONFLICT (team_id) DO UPDATE SET encrypted_api_key = excluded.encrypted_api_key,
         service_url = excluded.service_url, connected_by = excluded.connected_by, connected_at = excluded.connected_at`,
      connection,
    );
  }

  removeConnection(teamId: string): boolean {
    return this.statements.run('DELETE FROM workspaces WHERE team_id = ?', [teamId]).changes > 0;
  }

  close(): void {
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
    return new SqliteBotStore(openDatabase(databaseUrl.slice('sqlite:'.length), BOT_MIGRATIONS));
  }
  throw new Error(`DATABASE_URL ${databaseUrl.split(':')[0]}: is not supported yet; use sqlite:PATH`);
}
