import { randomUUID } from 'node:crypto';
import type { Comment, EntityType } from '../../contract/schemas.ts';
import type { SqliteDatabase } from './database.ts';
import type { Page } from './public-records-reader.ts';
import { StatementCache } from './statement-cache.ts';

interface CommentRow {
  id: string;
  entity_type: EntityType;
  entity_id: string;
  parent_id: string | null;
  body: string | null;
  author_id: string;
  author_name: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface NewComment {
  organisationId: string;
  entityType: EntityType;
  entityId: string;
  parentId: string | null;
  body: string;
  authorId: string;
}

const COMMENT_SELECT = `SELECT c.id, c.entity_type, c.entity_id, c.parent_id, c.body, c.author_id, u.name AS author_name,
  c.created_at, c.updated_at, c.deleted_at FROM comments c JOIN users u ON u.id = c.author_id`;

/** Comment threads of an organisation on public records; deletion keeps the entry with no body. */
export class CommentsStore {
  private readonly statements: StatementCache;

  constructor(db: SqliteDatabase) {
    this.statements = new StatementCache(db);
  }

  /** Oldest first, deleted comments included with a null body. */
  list(
    organisationId: string,
    entityType: EntityType,
    entityId: string,
    limit: number,
    offset: number,
  ): Page<Comment> {
    const params = [organisationId, entityType, entityId];
    const rows = this.statements.all<CommentRow>(
      `${COMMENT_SELECT} WHERE c.organisation_id = ? AND c.entity_type = ? AND c.entity_id = ? ORDER BY c.seq LIMIT ? OFFSET ?`,
      [...params, limit, offset],
    );
    const total =
      this.statements.get<{ total: number }>(
        'SELECT count(*) AS total FROM comments WHERE organisation_id = ? AND entity_type = ? AND entity_id = ?',
        params,
      )?.total ?? 0;
    return { items: rows.map(commentFromRow), total };
  }

  get(organisationId: string, id: string): (Comment & { authorId: string }) | null {
    const row = this.statements.get<CommentRow>(
      `${COMMENT_SELECT} WHERE c.organisation_id = ? AND c.id = ?`,
      [organisationId, id],
    );
    return row ? { ...commentFromRow(row), authorId: row.author_id } : null;
  }

  create(comment: NewComment, now: string): string {
    const id = randomUUID();
    this.statements.run(
      `INSERT INTO comments (id, organisation_id, entity_type, entity_id, parent_id, body, author_id, created_at, updated_at)
       VALUES (@id, @organisationId, @entityType, @entityId, @parentId, @body, @authorId, @now, @now)`,
      { ...comment, id, now },
    );
    return id;
  }

  softDelete(id: string, now: string): void {
    this.statements.run(
      'UPDATE comments SET body = NULL, deleted_at = ?, updated_at = ? WHERE id = ? AND deleted_at IS NULL',
      [now, now, id],
    );
  }

  recordNotification(
    notification: { organisationId: string; userId: string; commentId: string; tenderId: string },
    now: string,
  ): void {
    this.statements.run(
      `INSERT INTO notifications (organisation_id, user_id, kind, comment_id, tender_id, created_at)
       VALUES (@organisationId, @userId, 'tender_comment', @commentId, @tenderId, @now)`,
      { ...notification, now },
    );
  }

  /** Notifications recorded for a user, oldest first (the API has no endpoint for them yet). */
  notificationsFor(userId: string): { commentId: string; tenderId: string; organisationId: string }[] {
    return this.statements
      .all<{ comment_id: string; tender_id: string; organisation_id: string }>(
        'SELECT comment_id, tender_id, organisation_id FROM notifications WHERE user_id = ? ORDER BY seq',
        [userId],
      )
      .map((row) => ({
        commentId: row.comment_id,
        tenderId: row.tender_id,
        organisationId: row.organisation_id,
      }));
  }
}

function commentFromRow(row: CommentRow): Comment {
  return {
    id: row.id,
    entityType: row.entity_type,
    entityId: row.entity_id,
    parentId: row.parent_id,
    body: row.body,
    author: { id: row.author_id, name: row.author_name },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}
