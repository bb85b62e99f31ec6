import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { IdParams, PageQuery, SavedSearchDetail, SavedSearchList } from '../../../contract/schemas.ts';
import { notFound } from '../problem.ts';
import type { ServiceContext } from '../service-context.ts';
import { responses } from './responses.ts';

/** The organisation's saved search definitions, read only. */
export function savedSearchRoutes(context: ServiceContext): FastifyPluginAsyncZod {
  const { savedSearches } = context;

  return async (app) => {
    app.get(
      '/v1/saved-searches',
      {
        config: { scope: 'saved-searches:read' },
        schema: {
          summary: "The organisation's first 100 saved searches, oldest first; offsets stop at 99",
          tags: ['saved searches'],
          querystring: PageQuery,
          response: responses({ 200: SavedSearchList }),
        },
      },
      async (request) => {
        const { limit, offset: requested } = request.query;
        const page = savedSearches.list(request.caller.organisationId, limit, requested);
        return {
          data: page.items,
          pagination: { limit, offset: page.offset, total: page.total, hasMore: page.nextOffset !== null },
          nextOffset: page.nextOffset,
        };
      },
    );

    app.get(
      '/v1/saved-searches/:id',
      {
        config: { scope: 'saved-searches:read' },
        schema: {
          summary: 'One saved search with its query',
          tags: ['saved searches'],
          params: IdParams,
          response: responses({ 200: SavedSearchDetail }),
        },
      },
      async (request) => {
        const search = savedSearches.get(request.caller.organisationId, request.params.id);
        if (!search) throw notFound(`Saved search ${request.params.id}`);
        return { data: search };
      },
    );
  };
}
