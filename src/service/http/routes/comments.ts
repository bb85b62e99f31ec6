import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CommentDetail,
  CommentList,
  CommentQuery,
  CreateCommentBody,
  type EntityType,
  IdParams,
} from '../../../contract/schemas.ts';
import { forbidden, invalidField, notFound } from '../problem.ts';
import type { ServiceContext } from '../service-context.ts';
import { createIdempotently } from './idempotent-creation.ts';
import { listEnvelope, responses } from './responses.ts';

const ENTITY_NAMES: Record<EntityType, string> = {
  tender: 'Tender',
  buyer: 'Buyer',
  supplier: 'Supplier',
  framework: 'Framework',
};

/** Comment threads of the key's organisation on tenders, buyers, suppliers and frameworks. */
export function commentRoutes(context: ServiceContext): FastifyPluginAsyncZod {
  const { comments, publicRecords, bookmarks } = context;

  const entityExists = (type: EntityType, id: string): boolean => {
    switch (type) {
      case 'tender':
        return publicRecords.tenderExists(id);
      case 'buyer':
        return publicRecords.buyerExists(id);
      case 'supplier':
        return publicRecords.supplierExists(id);
      case 'framework':
        return publicRecords.frameworkExists(id);
    }
  };

  return async (app) => {
    app.get(
      '/v1/comments',
      {
        config: { scope: 'comments:read' },
        schema: {
          summary: "The organisation's comments on one record, oldest first (deleted ones with a null body)",
          tags: ['comments'],
          querystring: CommentQuery,
          response: responses({ 200: CommentList }),
        },
      },
      async (request) => {
        const { entityType, entityId, limit, offset } = request.query;
        if (!entityExists(entityType, entityId)) throw notFound(`${ENTITY_NAMES[entityType]} ${entityId}`);
        return listEnvelope(
          comments.list(request.caller.organisationId, entityType, entityId, limit, offset),
          limit,
          offset,
        );
      },
    );

    app.post(
      '/v1/comments',
      {
        config: { scope: 'comments:write' },
        schema: {
          summary: 'Post a comment or a reply (idempotent by idempotencyKey)',
          tags: ['comments'],
          body: CreateCommentBody,
          response: responses({ 200: CommentDetail, 201: CommentDetail }),
        },
      },
      async (request, reply) => {
        const { caller, body } = request;
        if (caller.role === 'viewer') throw forbidden('Viewers cannot post comments.');
        const { status, record } = createIdempotently(
          context,
          caller,
          'POST /v1/comments',
          body,
          (now) => {
            if (!entityExists(body.entityType, body.entityId)) {
              throw notFound(`${ENTITY_NAMES[body.entityType]} ${body.entityId}`);
            }
            const parentId = body.parentId ?? null;
            if (parentId !== null) {
              const parent = comments.get(caller.organisationId, parentId);
              if (!parent || parent.entityType !== body.entityType || parent.entityId !== body.entityId) {
                throw invalidField('parentId', 'must be a comment on the same record');
              }
            }
            const id = comments.create(
              {
                organisationId: caller.organisationId,
                entityType: body.entityType,
                entityId: body.entityId,
                parentId,
                body: body.body,
                authorId: caller.userId,
              },
              now,
            );
            if (body.entityType === 'tender') {
              for (const userId of bookmarks.membersWhoBookmarked(
                caller.organisationId,
                body.entityId,
                caller.userId,
              )) {
                comments.recordNotification(
                  { organisationId: caller.organisationId, userId, commentId: id, tenderId: body.entityId },
                  now,
                );
              }
            }
            return id;
          },
          (id) => comments.get(caller.organisationId, id),
        );
        const { authorId: _authorId, ...comment } = record;
        reply.code(status);
        return { data: comment };
      },
    );

    app.delete(
      '/v1/comments/:id',
      {
        config: { scope: 'comments:write' },
        schema: {
          summary: 'Delete a comment (soft: it stays in the thread with a null body)',
          tags: ['comments'],
          params: IdParams,
          response: responses({ 204: z.null().meta({ description: 'Deleted, or was already deleted.' }) }),
        },
      },
      async (request, reply) => {
        const { caller } = request;
        if (caller.role === 'viewer') throw forbidden('Viewers cannot delete comments.');
        const comment = comments.get(caller.organisationId, request.params.id);
        if (!comment) throw notFound(`Comment ${request.params.id}`);
        const mayModerate = caller.role === 'owner' || caller.role === 'admin';
        if (comment.authorId !== caller.userId && !mayModerate) {
          throw forbidden("Only the author or an organisation owner or admin may delete another's comment.");
        }
        comments.softDelete(comment.id, context.clock().toISOString());
        return reply.code(204).send(null);
      },
    );
  };
}
