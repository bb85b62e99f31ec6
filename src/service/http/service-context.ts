import { BookmarksStore } from '../store/bookmarks-store.ts';
import { CommentsStore } from '../store/comments-store.ts';
import type { SqliteDatabase } from '../store/database.ts';
import { IdempotencyStore } from '../store/idempotency-store.ts';
import { OrganisationsStore } from '../store/organisations-store.ts';
import { PipelinesStore } from '../store/pipelines-store.ts';
import { PublicRecordsReader } from '../store/public-records-reader.ts';
import { SavedSearchesStore } from '../store/saved-searches-store.ts';

/**
 * Everything a route needs, built once per server. Its own module so that the routes and the app
 * that registers them both import it, and neither imports the other.
 */
export interface ServiceContext {
  db: SqliteDatabase;
  publicRecords: PublicRecordsReader;
  organisations: OrganisationsStore;
  bookmarks: BookmarksStore;
  savedSearches: SavedSearchesStore;
  comments: CommentsStore;
  pipelines: PipelinesStore;
  idempotency: IdempotencyStore;
  clock: () => Date;
}

export function createServiceContext(
  db: SqliteDatabase,
  clock: () => Date = () => new Date(),
  countCacheSize?: number,
): ServiceContext {
  return {
    db,
    publicRecords: new PublicRecordsReader(db, countCacheSize),
    organisations: new OrganisationsStore(db),
    bookmarks: new BookmarksStore(db),
    savedSearches: new SavedSearchesStore(db),
    comments: new CommentsStore(db),
    pipelines: new PipelinesStore(db),
    idempotency: new IdempotencyStore(db),
    clock,
  };
}
