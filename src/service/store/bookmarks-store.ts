import type { Bookmark } from '../../contract/schemas.ts';
import type { SqliteDatabase } from './database.ts';
import type { Page } from './public-records-reader.ts';
import {
  TENDER_COLUMNS,
  type TenderRow,
  tenderListItemFromRow,
  toStoredInstant,
} from './public-records-reader.ts';
import { StatementCache } from './statement-cache.ts';

type BookmarkRow = TenderRow & { bookmarked_at: string };

const BOOKMARK_SELECT = `SELECT ${TENDER_COLUMNS}, b.created_at AS bookmarked_at
  FROM bookmarks b JOIN tenders t ON t.id = b.tender_id`;

/** Personal bookmarks: they belong to a user, not an organisation, and follow them everywhere. */
export class BookmarksStore {
  private readonly statements: StatementCache;

  constructor(db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  /** Adds the bookmark if absent; `created` says whether this call made it. */
  add(userId: string, tenderId: string, now: string): { bookmark: Bookmark; created: boolean } {
    const { changes } = this.statements.run(
      'INSERT INTO bookmarks (user_id, tender_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      [userId, tenderId, now],
    );
    const bookmark = this.get(userId, tenderId, new Date(now));
    if (!bookmark) throw new Error(`bookmark of ${tenderId} vanished`);
    return { bookmark, created: changes > 0 };
  }

  remove(userId: string, tenderId: string): void {
    this.statements.run('DELETE FROM bookmarks WHERE user_id = ? AND tender_id = ?', [userId, tenderId]);
  }

  /** The bookmarked tender's status is the one it has at `now` (see statusAt). */
  get(userId: string, tenderId: string, now: Date = new Date()): Bookmark | null {
    const row = this.statements.get<BookmarkRow>(
      `${BOOKMARK_SELECT} WHERE b.user_id = ? AND b.tender_id = ?`,
      [userId, tenderId],
    );
    return row ? bookmarkFromRow(row, toStoredInstant(now)) : null;
  }

  /** Newest bookmark first. */
  list(userId: string, limit: number, offset: number, now: Date = new Date()): Page<Bookmark> {
    const rows = this.statements.all<BookmarkRow>(
      `${BOOKMARK_SELECT} WHERE b.user_id = ? ORDER BY b.seq DESC LIMIT ? OFFSET ?`,
      [userId, limit, offset],
    );
    const total =
      this.statements.get<{ total: number }>(
        'SELECT count(*) AS total FROM bookmarks b JOIN tenders t ON t.id = b.tender_id WHERE b.user_id = ?',
        [userId],
      )?.total ?? 0;
    const at = toStoredInstant(now);
    return { items: rows.map((row) => bookmarkFromRow(row, at)), total };
  }

  /** Users of an organisation, other than `exceptUserId`, who bookmarked a tender. */
  membersWhoBookmarked(organisationId: string, tenderId: string, exceptUserId: string): string[] {
    return this.statements
      .all<{ user_id: string }>(
        `SELECT b.user_id FROM bookmarks b
         JOIN memberships m ON m.user_id = b.user_id AND m.organisation_id = ?
         WHERE b.tender_id = ? AND b.user_id <> ? ORDER BY b.user_id`,
        [organisationId, tenderId, exceptUserId],
      )
      .map((row) => row.user_id);
  }
}

function bookmarkFromRow(row: BookmarkRow, now: string): Bookmark {
  return { tenderId: row.id, createdAt: row.bookmarked_at, tender: tenderListItemFromRow(row, now) };
}
