import { SavedSearchDetail, SavedSearchList } from '../../contract/schemas.ts';
import { type HttpTransport, segment } from '../http-transport.ts';
import type { CallOptions } from '../options.ts';
import type { PageOptions } from '../pagination.ts';

/** GET /v1/saved-searches and /v1/saved-searches/{id}: the organisation's saved searches. */
export function savedSearchesResource(api: HttpTransport) {
  const list = (query: PageOptions = {}, options?: CallOptions) =>
    api.call(
      {
        name: 'savedSearches.list',
        method: 'GET',
        path: '/v1/saved-searches',
        query,
        schema: SavedSearchList,
      },
      options,
    );

  // This list pages by `nextOffset`, not `pagination` (spec §8: offset capped at 99).
  async function* followNextOffset(query: { limit?: number }, options?: CallOptions) {
    let offset: number | null = 0;
    while (offset !== null) {
      const page = await list({ ...query, offset }, options);
      yield* page.data;
      offset = page.nextOffset;
    }
  }

  return {
    list,
    get: (id: string, options?: CallOptions) =>
      api.data(
        {
          name: 'savedSearches.get',
          method: 'GET',
          path: `/v1/saved-searches/${segment(id)}`,
          schema: SavedSearchDetail,
        },
        options,
      ),
    /** Every listed saved search: follows `nextOffset`, so it stops at the service's cap of 100. */
    all: (query: { limit?: number } = {}, options?: CallOptions) => followNextOffset(query, options),
  };
}

export type SavedSearchesResource = ReturnType<typeof savedSearchesResource>;
