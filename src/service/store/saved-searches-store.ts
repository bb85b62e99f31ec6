import { randomUUID } from 'node:crypto';
import type { SavedSearch } from '../../contract/schemas.ts';
import { SAVED_SEARCH_LIST_CAP, SAVED_SEARCH_MAX_OFFSET } from '../../contract/schemas.ts';
import type { SqliteDatabase } from './database.ts';
import { StatementCache } from './statement-cache.ts';

interface SavedSearchRow {
  id: string;
  name: string;
  query: string;
  created_at: string;
  updated_at: string;
}

export interface SavedSearchPage {
  items: SavedSearch[];
  /** Counts the first 100 at most. */
  total: number;
  /** The offset actually used: 99 when more was asked. */
  offset: number;
  nextOffset: number | null;
}

/** An organisation's saved search definitions; the API reads them, only the fixture writes them. */
export class SavedSearchesStore {
  private readonly statements: StatementCache;

  constructor(db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  /** Oldest first, only the first 100 of the organisation, offsets capped at 99. */
  list(organisationId: string, limit: number, requestedOffset: number): SavedSearchPage {
    const offset = Math.min(requestedOffset, SAVED_SEARCH_MAX_OFFSET);
    const count =
      this.statements.get<{ total: number }>(
        'SELECT count(*) AS total FROM saved_searches WHERE organisation_id = ?',
        [organisationId],
      )?.total ?? 0;
    const total = Math.min(count, SAVED_SEARCH_LIST_CAP);
    const take = Math.max(0, Math.min(limit, total - offset));
    const rows = this.statements.all<SavedSearchRow>(
      'SELECT * FROM saved_searches WHERE organisation_id = ? ORDER BY seq LIMIT ? OFFSET ?',
      [organisationId, take, offset],
    );
    const next = offset + limit;
    return {
      items: rows.map(savedSearchFromRow),
      total,
      offset,
      nextOffset: next < total ? next : null,
    };
  }

  get(organisationId: string, id: string): SavedSearch | null {
    const row = this.statements.get<SavedSearchRow>(
      'SELECT * FROM saved_searches WHERE organisation_id = ? AND id = ?',
      [organisationId, id],
    );
    return row ? savedSearchFromRow(row) : null;
  }

  /** Used by the fixture and the demo data; an existing id is left as it is. */
  insert(
    search: { id?: string; organisationId: string; name: string; query: Record<string, unknown> },
    now: string,
  ): void {
    this.statements.run(
      `INSERT INTO saved_searches (id, organisation_id, name, query, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      [search.id ?? randomUUID(), search.organisationId, search.name, JSON.stringify(search.query), now, now],
    );
  }
}

function savedSearchFromRow(row: SavedSearchRow): SavedSearch {
  return {
    id: row.id,
    name: row.name,
    query: JSON.parse(row.query),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
