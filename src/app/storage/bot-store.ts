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
    return row
      ? {
          teamId: row.team_id,
          encryptedApiKey: row.encrypted_api_key,
          serviceUrl: row.service_url,
          connectedBy: row.connected_by,
          connectedAt: row.connected_at,
        }
      : null;
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

/** `sqlite:PATH` opens (and migrates) a SQLite file; other schemes are refused with a sentence. */
export function openBotStore(databaseUrl: string): BotStore {
  if (databaseUrl.startsWith('sqlite:')) {
    return new SqliteBotStore(openDatabase(databaseUrl.slice('sqlite:'.length), BOT_MIGRATIONS));
  }
  throw new Error(`DATABASE_URL ${databaseUrl.split(':')[0]}: is not supported yet; use sqlite:PATH`);
}
