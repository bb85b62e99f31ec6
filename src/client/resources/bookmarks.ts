import { BookmarkDetail, BookmarkList } from '../../contract/schemas.ts';
import { type HttpTransport, NO_CONTENT, segment } from '../http-transport.ts';
import type { CallOptions } from '../options.ts';
import { everyPage, type PageOptions } from '../pagination.ts';

/**
 * /v1/bookmarks: the key creator's own bookmarks, which follow the person, not the organisation.
 * Adding and removing are idempotent (spec §8 rule 5), so both are retried like reads.
 */
export function bookmarksResource(api: HttpTransport) {
  const list = (query: PageOptions = {}, options?: CallOptions) =>
    api.call(
      { name: 'bookmarks.list', method: 'GET', path: '/v1/bookmarks', query, schema: BookmarkList },
      options,
    );
  return {
    list,
    all: (query: PageOptions = {}, options?: CallOptions) =>
      everyPage((offset) => list({ ...query, offset }, options), query.offset),
    add: (tenderId: string, options?: CallOptions) =>
      api.data(
        {
          name: 'bookmarks.add',
          method: 'POST',
          path: `/v1/bookmarks/${segment(tenderId)}`,
          schema: BookmarkDetail,
        },
        options,
      ),
    remove: (tenderId: string, options?: CallOptions): Promise<void> =>
      api.call(
        {
          name: 'bookmarks.remove',
          method: 'DELETE',
          path: `/v1/bookmarks/${segment(tenderId)}`,
          schema: NO_CONTENT,
        },
        options,
      ),
  };
}

export type BookmarksResource = ReturnType<typeof bookmarksResource>;
