import { randomUUID } from 'node:crypto';
import {
  CommentDetail,
  CommentList,
  type CreateCommentBody,
  type EntityType,
} from '../../contract/schemas.ts';
import { type HttpTransport, NO_CONTENT, segment } from '../http-transport.ts';
import type { CallOptions, CreateOptions } from '../options.ts';
import { everyPage, type PageOptions } from '../pagination.ts';

export type NewComment = Omit<CreateCommentBody, 'idempotencyKey'>;

/** /v1/comments: the thread on a tender, buyer, supplier or framework. */
export function commentsResource(api: HttpTransport) {
  const list = (query: { entityType: EntityType; entityId: string } & PageOptions, options?: CallOptions) =>
    api.call(
      { name: 'comments.list', method: 'GET', path: '/v1/comments', query, schema: CommentList },
      options,
    );
  return {
    list,
    all: (query: { entityType: EntityType; entityId: string } & PageOptions, options?: CallOptions) =>
      everyPage((offset) => list({ ...query, offset }, options), query.offset),
    /** Posted once however often it is retried: every attempt carries the same idempotency key. */
    create: (comment: NewComment, options?: CreateOptions) =>
      api.data(
        {
          name: 'comments.create',
          method: 'POST',
          path: '/v1/comments',
          body: { ...comment, idempotencyKey: options?.idempotencyKey ?? randomUUID() },
          schema: CommentDetail,
        },
        options,
      ),
    /** Soft delete; deleting one already deleted succeeds too, so it is safe to retry. */
    delete: (id: string, options?: CallOptions): Promise<void> =>
      api.call(
        {
          name: 'comments.delete',
          method: 'DELETE',
          path: `/v1/comments/${segment(id)}`,
          schema: NO_CONTENT,
        },
        options,
      ),
  };
}

export type CommentsResource = ReturnType<typeof commentsResource>;
