import { HttpTransport } from './http-transport.ts';
import type { ClientOptions } from './options.ts';
import { type BookmarksResource, bookmarksResource } from './resources/bookmarks.ts';
import { type BuyersResource, buyersResource } from './resources/buyers.ts';
import { type CommentsResource, commentsResource } from './resources/comments.ts';
import { type FrameworksResource, frameworksResource } from './resources/frameworks.ts';
import { type PipelinesResource, pipelinesResource } from './resources/pipelines.ts';
import { type SavedSearchesResource, savedSearchesResource } from './resources/saved-searches.ts';
import { type SuppliersResource, suppliersResource } from './resources/suppliers.ts';
import { type TendersResource, tendersResource } from './resources/tenders.ts';

export type { CallOptions, ClientOptions, CreateOptions } from './options.ts';
export type { PageOptions } from './pagination.ts';
export type { DirectorySearch } from './resources/buyers.ts';
export type { NewComment } from './resources/comments.ts';
export type { FrameworkSearch } from './resources/frameworks.ts';
export type { NewPipeline, PipelineSearch } from './resources/pipelines.ts';
export type { TenderSearch } from './resources/tenders.ts';

/**
 * The typed client of the Procurement Intelligence Service: one method per endpoint, grouped by
 * resource (one file each in `resources/`), every answer parsed by the contract's schemas, every
 * failure a typed error, retries where the specification makes a call safe to repeat.
 */
export class ProcurementClient {
  private readonly transport: HttpTransport;
  readonly tenders: TendersResource;
  readonly buyers: BuyersResource;
  readonly suppliers: SuppliersResource;
  readonly frameworks: FrameworksResource;
  readonly bookmarks: BookmarksResource;
  readonly savedSearches: SavedSearchesResource;
  readonly comments: CommentsResource;
  readonly pipelines: PipelinesResource;

  constructor(options: ClientOptions) {
    const transport = new HttpTransport(options);
    this.transport = transport;
    this.tenders = tendersResource(transport);
    this.buyers = buyersResource(transport);
    this.suppliers = suppliersResource(transport);
    this.frameworks = frameworksResource(transport);
    this.bookmarks = bookmarksResource(transport);
    this.savedSearches = savedSearchesResource(transport);
    this.comments = commentsResource(transport);
    this.pipelines = pipelinesResource(transport);
  }

  /** Requests sent so far, retries included: each one counts against the key's rate (spec §8 rule 4). */
  get attempts(): number {
    return this.transport.attempts;
  }

  /** Closes the client's own connections (a shared dispatcher is left to its owner). */
  async close(): Promise<void> {
    await this.transport.close();
  }

  // Keeps the key out of `console.log(client)` and `util.inspect`.
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ProcurementClient { baseUrl: '${this.transport.baseUrl}' }`;
  }

  toJSON(): { baseUrl: string } {
    return { baseUrl: this.transport.baseUrl };
  }
}
