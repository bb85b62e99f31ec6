import type { ProcurementClient } from '../../client/procurement-client.ts';

/** The most bookmarks read to mark cards' buttons: ten pages, the key's rate in mind. */
const MOST_BOOKMARKS_READ = 1000;

/**
 * The tenders the key's owner has bookmarked, for drawing each card's Bookmark button in its state
 * (the service's tenders do not say it: personal data stays out of them, spec §1). Read from the
 * service each time, so a bookmark made anywhere else shows: `client` is the person's own key when
 * they linked one, else (and for a channel's card) the workspace's.
 */
export async function bookmarkedIds(client: ProcurementClient): Promise<Set<string>> {
  const ids = new Set<string>();
  for await (const bookmark of client.bookmarks.all({ limit: 100 })) {
    ids.add(bookmark.tenderId);
    if (ids.size >= MOST_BOOKMARKS_READ) break;
  }
  return ids;
}
