import type { SqliteDatabase } from './database.ts';
import { StatementCache } from './statement-cache.ts';

export interface IdempotencyScope {
  organisationId: string;
  userId: string;
  endpoint: string;
  key: string;
}

/**
 * A request's content for idempotency: the body without its key, as canonical JSON (sorted keys).
 * Null and absent are the same content (CONTRACT.md §9 says so of `parentId`; it holds for every
 * optional field, since both leave the field null).
 */
export function canonicalContent(body: Record<string, unknown>): string {
  const { idempotencyKey: _key, ...content } = body;
  return JSON.stringify(canonicalise(content));
}

function canonicalise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalise);
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== null && item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => [key, canonicalise(item)]);
    return Object.fromEntries(entries);
  }
  return value;
}

/** Remembers which record each creation's idempotency key made, with the content that made it. */
export class IdempotencyStore {
  private readonly statements: StatementCache;

  constructor(db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  find(scope: IdempotencyScope): { content: string; recordId: string } | null {
    const row = this.statements.get<{ content: string; record_id: string }>(
      `SELECT content, record_id FROM idempotency_keys
       WHERE organisation_id = @organisationId AND user_id = @userId AND endpoint = @endpoint AND key = @key`,
      scope,
    );
    return row ? { content: row.content, recordId: row.record_id } : null;
  }

  remember(scope: IdempotencyScope, content: string, recordId: string, now: string): void {
    this.statements.run(
      `INSERT INTO idempotency_keys (organisation_id, user_id, endpoint, key, content, record_id, created_at)
       VALUES (@organisationId, @userId, @endpoint, @key, @content, @recordId, @now)`,
      { ...scope, content, recordId, now },
    );
  }
}
