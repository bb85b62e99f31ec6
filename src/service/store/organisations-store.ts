import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Statement } from 'better-sqlite3';
import type { Plan, Role, Scope } from '../../contract/schemas.ts';
import type { SqliteDatabase } from './database.ts';
import { StatementCache } from './statement-cache.ts';

/** What the service knows of a request's key, read fresh on every request. */
export interface KeyHolder {
  keyId: string;
  organisationId: string;
  plan: Plan;
  userId: string;
  userName: string;
  /** The creator's current role in the key's organisation; null once they are no longer a member. */
  role: Role | null;
  scopes: ReadonlySet<Scope>;
  expiresAt: string | null;
  rateLimitPerSecond: number;
}

export interface NewKey {
  name: string;
  organisationId: string;
  userId: string;
  scopes: Scope[];
  expiresAt: string | null;
  rateLimitPerSecond: number;
}

/** The default rate for keys that do not state one: generous for people, bounded for scripts. */
export const DEFAULT_RATE_LIMIT_PER_SECOND = 50;

/** Keys are long random strings, so one SHA-256 is enough; the clear key is never stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** `pis_` and 43 url-safe characters (32 random bytes). */
export function generateApiKey(): string {
  return `pis_${randomBytes(32).toString('base64url')}`;
}

/** Distinct scope lists read at most (a few combinations of some twenty scopes in practice). */
const SCOPE_SETS_KEPT = 1000;

/** Hashes of known keys remembered at once; past this the list is emptied and filled again. */
const KEY_HASHES_KEPT = 10_000;

/**
 * The key holder's row, read on every request: the key (a deleted key finds nothing), its
 * organisation's plan, its creator and their membership as they stand now. Read as an array in
 * KeyRow's order (no object per row).
 */
const KEY_HOLDER_SQL = `SELECT k.id, k.organisation_id, o.plan, k.user_id, u.name AS user_name, m.role, k.scopes,
    k.expires_at, k.rate_limit_per_second
  FROM api_keys k
  JOIN organisations o ON o.id = k.organisation_id
  JOIN users u ON u.id = k.user_id
  LEFT JOIN memberships m ON m.organisation_id = k.organisation_id AND m.user_id = k.user_id
  WHERE k.key_hash = ?`;

type KeyRow = [
  id: string,
  organisationId: string,
  plan: Plan,
  userId: string,
  userName: string,
  role: Role | null,
  scopes: string,
  expiresAt: string | null,
  rateLimitPerSecond: number,
];

/** Organisations, users, memberships and API keys. */
export class OrganisationsStore {
  private readonly statements: StatementCache;
  private readonly scopeSets = new Map<string, ReadonlySet<Scope>>();
  /** Clear key to its SHA-256, for keys found at least once: a string's hash never changes. */
  private readonly keyHashes = new Map<string, string>();
  private keyHolderStatement: Statement | undefined;

  constructor(private readonly db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  /**
   * The key's holder as the database says now (null for an unknown key). Only the hash of the
   * clear key is remembered, never the row: a deleted key, a creator no longer a member, a new
   * plan or role are seen on the very next request.
   */
  findKeyHolder(clearKey: string): KeyHolder | null {
    this.keyHolderStatement ??= this.db.prepare(KEY_HOLDER_SQL).raw(true);
    const remembered = this.keyHashes.get(clearKey);
    const keyHash = remembered ?? hashApiKey(clearKey);
    const row = this.keyHolderStatement.get(keyHash) as KeyRow | undefined;
    if (!row) return null;
    // Only keys that exist are remembered: a caller trying random keys fills nothing.
    if (remembered === undefined) {
      if (this.keyHashes.size >= KEY_HASHES_KEPT) this.keyHashes.clear();
      this.keyHashes.set(clearKey, keyHash);
    }
    return {
      keyId: row[0],
      organisationId: row[1],
      plan: row[2],
      userId: row[3],
      userName: row[4],
      role: row[5],
      scopes: this.scopesOf(row[6]),
      expiresAt: row[7],
      rateLimitPerSecond: row[8],
    };
  }

  /**
   * A key's scopes as a set, by the text stored: the same text always reads as the same set, so
   * each distinct text is read once (the row itself is still read on every request).
   */
  private scopesOf(stored: string): ReadonlySet<Scope> {
    let scopes = this.scopeSets.get(stored);
    if (!scopes) {
      scopes = new Set(JSON.parse(stored) as Scope[]);
      if (this.scopeSets.size >= SCOPE_SETS_KEPT) this.scopeSets.clear();
      this.scopeSets.set(stored, scopes);
    }
    return scopes;
  }

  /** Stores a key's hash; the caller gets the clear key once and must show it once. */
  createKey(key: NewKey, clearKey = generateApiKey()): { id: string; key: string } {
    // A creator who is not (or no longer) a member is allowed: such a key answers 401 disabled_api_key.
    if (!this.userExists(key.userId)) throw new Error(`user ${key.userId} does not exist`);
    if (!this.organisationExists(key.organisationId))
      throw new Error(`organisation ${key.organisationId} does not exist`);
    this.statements.run(
      `INSERT INTO api_keys (id, key_hash, name, organisation_id, user_id, scopes, expires_at, rate_limit_per_second, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_hash) DO NOTHING`,
      [
        randomUUID(),
        hashApiKey(clearKey),
        key.name,
        key.organisationId,
        key.userId,
        JSON.stringify(key.scopes),
        key.expiresAt,
        key.rateLimitPerSecond,
        new Date().toISOString(),
      ],
    );
    // A key loaded again from a fixture keeps the id it was first stored with.
    const stored = this.statements.get<{ id: string }>('SELECT id FROM api_keys WHERE key_hash = ?', [
      hashApiKey(clearKey),
    ]);
    if (!stored) throw new Error('the key was not stored');
    return { id: stored.id, key: clearKey };
  }

  upsertOrganisation(organisation: { id: string; name: string; plan: Plan }): void {
    this.statements.run(
      'INSERT INTO organisations (id, name, plan) VALUES (@id, @name, @plan) ON CONFLICT DO NOTHING',
      organisation,
    );
  }

  upsertUser(user: { id: string; name: string; email?: string | null }): void {
    this.statements.run(
      'INSERT INTO users (id, name, email) VALUES (@id, @name, @email) ON CONFLICT DO NOTHING',
      {
        email: null,
        ...user,
      },
    );
  }

  upsertMembership(membership: { organisationId: string; userId: string; role: Role }): void {
    this.statements.run(
      'INSERT INTO memberships (organisation_id, user_id, role) VALUES (@organisationId, @userId, @role) ON CONFLICT DO NOTHING',
      membership,
    );
  }

  roleOf(organisationId: string, userId: string): Role | null {
    return (
      this.statements.get<{ role: Role }>(
        'SELECT role FROM memberships WHERE organisation_id = ? AND user_id = ?',
        [organisationId, userId],
      )?.role ?? null
    );
  }

  isMember(organisationId: string, userId: string): boolean {
    return this.roleOf(organisationId, userId) !== null;
  }

  userExists(userId: string): boolean {
    return this.statements.get('SELECT 1 FROM users WHERE id = ?', [userId]) !== undefined;
  }

  organisationExists(organisationId: string): boolean {
    return this.statements.get('SELECT 1 FROM organisations WHERE id = ?', [organisationId]) !== undefined;
  }

  userName(userId: string): string {
    return (
      this.statements.get<{ name: string }>('SELECT name FROM users WHERE id = ?', [userId])?.name ?? userId
    );
  }

  isEmpty(): boolean {
    return this.statements.get('SELECT 1 FROM organisations LIMIT 1', []) === undefined;
  }

  transaction<T>(work: () => T): T {
    return this.db.transaction(work)();
  }
}
