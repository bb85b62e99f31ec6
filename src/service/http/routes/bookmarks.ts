import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BookmarkDetail, BookmarkList, IdParams, PageQuery } from '../../../contract/schemas.ts';
import { notFound } from '../problem.ts';
import type { ServiceContext } from '../service-context.ts';
import { listEnvelope, responses } from './responses.ts';

/** The key creator's personal bookmarks; they follow the user across organisations. */
export function bookmarkRoutes(context: ServiceContext): FastifyPluginAsyncZod {
  const { bookmarks, publicRecords } = context;

  return async (app) => {
    app.get(
      '/v1/bookmarks',
      {
        config: { scope: 'bookmarks:read' },
        schema: {
          summary: "The key creator's bookmarks, newest first",
          tags: ['bookmarks'],
          querystring: PageQuery,
          response: responses({ 200: BookmarkList }),
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        return listEnvelope(
          bookmarks.list(request.caller.userId, limit, offset, context.clock()),
          limit,
          offset,
        );
      },
    );

    app.post(
      '/v1/bookmarks/:id',
      {
        config: { scope: 'bookmarks:write' },
        schema: {
          summary: 'Bookmark a tender (idempotent: 201 the first time, then 200)',
          tags: ['bookmarks'],
          params: IdParams,
          response: responses({ 200: BookmarkDetail, 201: BookmarkDetail }),
        },
      },
      async (request, reply) => {
        const tenderId = request.params.id;
        if (!publicRecords.tenderExists(tenderId)) throw notFound(`Tender ${tenderId}`);
        const { bookmark, created } = bookmarks.add(
          request.caller.userId,
          tenderId,
          context.clock().toISOString(),
        );
        reply.code(created ? 201 : 200);
        return { data: bookmark };
      },
    );

    app.delete(
      '/v1/bookmarks/:id',
      {
        config: { scope: 'bookmarks:write' },
        schema: {
          summary: 'Remove a bookmark (idempotent: 204 whether or not it existed)',
          tags: ['bookmarks'],
          params: IdParams,
          response: responses({ 204: z.null().meta({ description: 'Removed, or was not there.' }) }),
        },
      },
      async (request, reply) => {
        bookmarks.remove(request.caller.userId, request.params.id);
        return reply.code(204).send(null);
      },
    );
  };
}
