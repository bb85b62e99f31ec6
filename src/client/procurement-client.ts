import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher, request } from 'undici';
import type { z } from 'zod';
import {
  BookmarkDetail,
  BookmarkList,
  BuyerDetail,
  BuyerList,
  CommentDetail,
  CommentList,
  type CreateCommentBody,
  type CreatePipelineBody,
  type DirectoryQuery,
  type EntityType,
  FrameworkDetail,
  FrameworkList,
  type FrameworkQuery,
  PipelineDetail,
  PipelineList,
  type PipelineQuery,
  SavedSearchDetail,
  SavedSearchList,
  StageDetail,
  SupplierDetail,
  SupplierList,
  TenderDetail,
  TenderList,
  type TenderSearchQuery,
  type UpdatePipelineBody,
  type UpdateStageBody,
} from '../contract/schemas.ts';
import {
  AbortedError,
  ApiError,
  ConnectionError,
  MAX_FIELD_ERRORS,
  ProcurementClientError,
  RateLimitedError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
} from './errors.ts';

export interface ClientOptions {
  /** The service's base URL, without `/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  /** Retries after the first attempt, for calls that are safe to repeat; default 2. */
  maxRetries?: number;
  retryDelay?: {
    /** First backoff; doubles each retry, with full jitter. Default 250 ms. */
    initialMs?: number;
    /** Longest backoff. Default 4 s. */
    maxMs?: number;
    /** Longest `Retry-After` the client waits for; a longer one surfaces as RateLimitedError. Default 30 s. */
    maxRetryAfterMs?: number;
  };
  /** An undici dispatcher to share; by default the client keeps its own keep-alive agent. */
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
}

export interface CreateOptions extends CallOptions {
  /** Made once per logical creation (UUID v4) unless given; reused on every retry. */
  idempotencyKey?: string;
}

type Query = Record<string, string | number | boolean | undefined | null>;

interface Operation<S extends z.ZodType> {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  /** Whether repeating the call cannot do anything twice (spec §8 rule 5 and idempotency keys). */
  retryable: boolean;
  schema: S | null;
}

type Page<T> = { data: T[]; pagination: { limit: number; offset: number; total: number; hasMore: boolean } };

export type TenderSearch = Partial<TenderSearchQuery>;
export type DirectorySearch = Partial<DirectoryQuery>;
export type FrameworkSearch = Partial<FrameworkQuery>;
export type PipelineSearch = Partial<PipelineQuery>;
export type PageOptions = { limit?: number; offset?: number };
export type NewComment = Omit<CreateCommentBody, 'idempotencyKey'>;
export type NewPipeline = Omit<z.input<typeof CreatePipelineBody>, 'idempotencyKey'>;

/**
 * The typed client of the Procurement Intelligence Service: one method per endpoint, every
 * answer parsed by the contract's schemas, every failure a typed error, retries only where the
 * specification makes a call safe to repeat.
 */
export class ProcurementClient {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly authorization: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxRetryAfterMs: number;
  private attemptCount = 0;

  constructor(options: ClientOptions) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.authorization = `Bearer ${options.apiKey}`;
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 16 });
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.initialDelayMs = options.retryDelay?.initialMs ?? 250;
    this.maxDelayMs = options.retryDelay?.maxMs ?? 4000;
    this.maxRetryAfterMs = options.retryDelay?.maxRetryAfterMs ?? 30_000;
  }

  /** Requests sent so far, retries included: each one counts against the key's rate (spec §8 rule 4). */
  get attempts(): number {
    return this.attemptCount;
  }

  /** Closes the client's own connections (a shared dispatcher is left to its owner). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  // Keeps the key out of `console.log(client)` and `util.inspect`.
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `ProcurementClient { baseUrl: '${this.origin}${this.basePath}' }`;
  }

  toJSON(): { baseUrl: string } {
    return { baseUrl: `${this.origin}${this.basePath}` };
  }

  readonly tenders = {
    search: (query: TenderSearch = {}, options?: CallOptions) =>
      this.call(
        {
          name: 'tenders.search',
          method: 'GET',
          path: '/v1/tenders',
          query,
          retryable: true,
          schema: TenderList,
        },
        options,
      ),
    get: async (id: string, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'tenders.get',
            method: 'GET',
            path: `/v1/tenders/${e(id)}`,
            retryable: true,
            schema: TenderDetail,
          },
          options,
        )
      ).data,
    /** Every tender of the search, page after page. */
    all: (query: TenderSearch = {}, options?: CallOptions) =>
      this.iterate((offset) => this.tenders.search({ ...query, offset }, options), query.offset),
  };

  readonly buyers = {
    list: (query: DirectorySearch = {}, options?: CallOptions) =>
      this.call(
        { name: 'buyers.list', method: 'GET', path: '/v1/buyers', query, retryable: true, schema: BuyerList },
        options,
      ),
    get: async (id: string, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'buyers.get',
            method: 'GET',
            path: `/v1/buyers/${e(id)}`,
            retryable: true,
            schema: BuyerDetail,
          },
          options,
        )
      ).data,
    all: (query: DirectorySearch = {}, options?: CallOptions) =>
      this.iterate((offset) => this.buyers.list({ ...query, offset }, options), query.offset),
  };

  readonly suppliers = {
    list: (query: DirectorySearch = {}, options?: CallOptions) =>
      this.call(
        {
          name: 'suppliers.list',
          method: 'GET',
          path: '/v1/suppliers',
          query,
          retryable: true,
          schema: SupplierList,
        },
        options,
      ),
    get: async (id: string, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'suppliers.get',
            method: 'GET',
            path: `/v1/suppliers/${e(id)}`,
            retryable: true,
            schema: SupplierDetail,
          },
          options,
        )
      ).data,
    all: (query: DirectorySearch = {}, options?: CallOptions) =>
      this.iterate((offset) => this.suppliers.list({ ...query, offset }, options), query.offset),
  };

  readonly frameworks = {
    list: (query: FrameworkSearch = {}, options?: CallOptions) =>
      this.call(
        {
          name: 'frameworks.list',
          method: 'GET',
          path: '/v1/frameworks',
          query,
          retryable: true,
          schema: FrameworkList,
        },
        options,
      ),
    get: async (id: string, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'frameworks.get',
            method: 'GET',
            path: `/v1/frameworks/${e(id)}`,
            retryable: true,
            schema: FrameworkDetail,
          },
          options,
        )
      ).data,
    all: (query: FrameworkSearch = {}, options?: CallOptions) =>
      this.iterate((offset) => this.frameworks.list({ ...query, offset }, options), query.offset),
  };

  readonly bookmarks = {
    /** The key creator's own bookmarks: they follow the person, not the organisation. */
    list: (query: PageOptions = {}, options?: CallOptions) =>
      this.call(
        {
          name: 'bookmarks.list',
          method: 'GET',
          path: '/v1/bookmarks',
          query,
          retryable: true,
          schema: BookmarkList,
        },
        options,
      ),
    all: (query: PageOptions = {}, options?: CallOptions) =>
      this.iterate((offset) => this.bookmarks.list({ ...query, offset }, options), query.offset),
    add: async (tenderId: string, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'bookmarks.add',
            method: 'POST',
            path: `/v1/bookmarks/${e(tenderId)}`,
            retryable: true,
            schema: BookmarkDetail,
          },
          options,
        )
      ).data,
    remove: async (tenderId: string, options?: CallOptions): Promise<void> => {
      await this.call(
        {
          name: 'bookmarks.remove',
          method: 'DELETE',
          path: `/v1/bookmarks/${e(tenderId)}`,
          retryable: true,
          schema: null,
        },
        options,
      );
    },
  };

  readonly savedSearches = {
    list: (query: PageOptions = {}, options?: CallOptions) =>
      this.call(
        {
          name: 'savedSearches.list',
          method: 'GET',
          path: '/v1/saved-searches',
          query,
          retryable: true,
          schema: SavedSearchList,
        },
        options,
      ),
    get: async (id: string, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'savedSearches.get',
            method: 'GET',
            path: `/v1/saved-searches/${e(id)}`,
            retryable: true,
            schema: SavedSearchDetail,
          },
          options,
        )
      ).data,
    /** Every listed saved search: follows `nextOffset`, so it stops at the service's cap of 100. */
    all: (query: { limit?: number } = {}, options?: CallOptions) => this.followNextOffset(query, options),
  };

  readonly comments = {
    list: (query: { entityType: EntityType; entityId: string } & PageOptions, options?: CallOptions) =>
      this.call(
        {
          name: 'comments.list',
          method: 'GET',
          path: '/v1/comments',
          query,
          retryable: true,
          schema: CommentList,
        },
        options,
      ),
    all: (query: { entityType: EntityType; entityId: string } & PageOptions, options?: CallOptions) =>
      this.iterate((offset) => this.comments.list({ ...query, offset }, options), query.offset),
    create: async (comment: NewComment, options?: CreateOptions) => {
      const body = { ...comment, idempotencyKey: options?.idempotencyKey ?? randomUUID() };
      return (
        await this.call(
          {
            name: 'comments.create',
            method: 'POST',
            path: '/v1/comments',
            body,
            retryable: true,
            schema: CommentDetail,
          },
          options,
        )
      ).data;
    },
    /** Soft delete; deleting one already deleted succeeds too, so it is safe to retry. */
    delete: async (id: string, options?: CallOptions): Promise<void> => {
      await this.call(
        {
          name: 'comments.delete',
          method: 'DELETE',
          path: `/v1/comments/${e(id)}`,
          retryable: true,
          schema: null,
        },
        options,
      );
    },
  };

  readonly pipelines = {
    list: (query: PipelineSearch = {}, options?: CallOptions) =>
      this.call(
        {
          name: 'pipelines.list',
          method: 'GET',
          path: '/v1/pipelines',
          query,
          retryable: true,
          schema: PipelineList,
        },
        options,
      ),
    all: (query: PipelineSearch = {}, options?: CallOptions) =>
      this.iterate((offset) => this.pipelines.list({ ...query, offset }, options), query.offset),
    get: async (id: string, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'pipelines.get',
            method: 'GET',
            path: `/v1/pipelines/${e(id)}`,
            retryable: true,
            schema: PipelineDetail,
          },
          options,
        )
      ).data,
    create: async (pipeline: NewPipeline, options?: CreateOptions) => {
      const body = { ...pipeline, idempotencyKey: options?.idempotencyKey ?? randomUUID() };
      return (
        await this.call(
          {
            name: 'pipelines.create',
            method: 'POST',
            path: '/v1/pipelines',
            body,
            retryable: true,
            schema: PipelineDetail,
          },
          options,
        )
      ).data;
    },
    update: async (id: string, changes: UpdatePipelineBody, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'pipelines.update',
            method: 'PATCH',
            path: `/v1/pipelines/${e(id)}`,
            body: changes,
            retryable: true,
            schema: PipelineDetail,
          },
          options,
        )
      ).data,
    updateStage: async (id: string, stageId: string, changes: UpdateStageBody, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'pipelines.updateStage',
            method: 'PATCH',
            path: `/v1/pipelines/${e(id)}/stages/${e(stageId)}`,
            body: changes,
            retryable: true,
            schema: StageDetail,
          },
          options,
        )
      ).data,
    /** `true` archives, `false` restores; the pipeline's status is unchanged. */
    archive: async (id: string, archived: boolean, options?: CallOptions) =>
      (
        await this.call(
          {
            name: 'pipelines.archive',
            method: 'POST',
            path: `/v1/pipelines/${e(id)}/archive`,
            body: { archived },
            retryable: true,
            schema: PipelineDetail,
          },
          options,
        )
      ).data,
  };

  private async *followNextOffset(query: { limit?: number }, options?: CallOptions) {
    let offset: number | null = 0;
    while (offset !== null) {
      const page: z.infer<typeof SavedSearchList> = await this.savedSearches.list(
        { ...query, offset },
        options,
      );
      yield* page.data;
      offset = page.nextOffset;
    }
  }

  /** Walks a list page by page until the service says there is no more. */
  private async *iterate<T>(
    fetchPage: (offset: number) => Promise<Page<T>>,
    startOffset = 0,
  ): AsyncGenerator<T> {
    let offset = startOffset;
    for (;;) {
      const page = await fetchPage(offset);
      yield* page.data;
      if (!page.pagination.hasMore || page.data.length === 0) return;
      offset = page.pagination.offset + page.data.length;
    }
  }

  private async call<S extends z.ZodType>(
    operation: Operation<S>,
    options: CallOptions = {},
  ): Promise<z.infer<S>> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const url = `${this.origin}${this.basePath}${operation.path}${queryString(operation.query)}`;
    const body = operation.body === undefined ? undefined : JSON.stringify(operation.body);
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';

    for (let attempt = 0; ; attempt++) {
      let failure: ProcurementClientError;
      try {
        return await this.attempt(operation, url, headers, body, options);
      } catch (error) {
        if (!(error instanceof ProcurementClientError)) throw error;
        failure = error;
      }
      const delayMs = this.retryDelay(failure, attempt);
      if (!operation.retryable || attempt >= maxRetries || delayMs === null) throw failure;
      try {
        await sleep(delayMs, undefined, { signal: options.signal });
      } catch {
        throw new AbortedError(`${operation.name} was cancelled`);
      }
    }
  }

  private async attempt<S extends z.ZodType>(
    operation: Operation<S>,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
    options: CallOptions,
  ): Promise<z.infer<S>> {
    if (options.signal?.aborted) throw new AbortedError(`${operation.name} was cancelled`);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    // A timer cleared on answer, not AbortSignal.timeout: that one costs about 30 µs a call and
    // leaves a pending timer per request for timeoutMs (measured, bench:client: 10% of a detail read).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    timer.unref();
    const timeout = deadline.signal;
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    this.attemptCount++;
    let status: number;
    let text: string | null;
    let responseHeaders: Record<string, string>;
    try {
      const response = await request(url, {
        method: operation.method,
        headers,
        body,
        signal,
        dispatcher: this.dispatcher,
      });
      status = response.statusCode;
      responseHeaders = flattenHeaders(response.headers);
      const success = status >= 200 && status < 300;
      text = await readBounded(response.body, success ? MAX_SUCCESS_BYTES : MAX_PROBLEM_BYTES);
    } catch (error) {
      if (options.signal?.aborted) throw new AbortedError(`${operation.name} was cancelled`);
      if (timeout.aborted || isTimeout(error)) {
        throw new TimeoutError(`${operation.name}: no answer from ${this.origin} within ${timeoutMs} ms`);
      }
      const code = (error as { code?: string }).code ?? (error as Error).name;
      throw new ConnectionError(`${operation.name}: the connection to ${this.origin} failed (${code})`, {
        cause: error,
      });
    } finally {
      clearTimeout(timer);
    }
    const json = text === null ? null : parseJson(text);
    if (status < 200 || status >= 300) throw ApiError.from(status, json, responseHeaders);
    if (text === null) {
      throw new ResponseValidationError(
        operation.name,
        [{ path: '', message: `the body is larger than ${MAX_SUCCESS_BYTES / 1024 / 1024} MiB` }],
        responseHeaders['x-request-id'] ?? null,
      );
    }
    if (operation.schema === null) return undefined as z.infer<S>;
    const parsed = operation.schema.safeParse(json);
    if (!parsed.success) {
      throw new ResponseValidationError(
        operation.name,
        parsed.error.issues
          .slice(0, MAX_FIELD_ERRORS)
          .map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
        responseHeaders['x-request-id'] ?? null,
      );
    }
    return parsed.data;
  }

  /** The wait before the next attempt, or null when the failure is not worth retrying. */
  private retryDelay(failure: ProcurementClientError, attempt: number): number | null {
    if (failure instanceof RateLimitedError) {
      if (failure.retryAfter === null) return this.backoff(attempt);
      const waitMs = failure.retryAfter * 1000;
      return waitMs <= this.maxRetryAfterMs ? waitMs : null;
    }
    if (
      failure instanceof ServerError ||
      failure instanceof ConnectionError ||
      failure instanceof TimeoutError
    ) {
      return this.backoff(attempt);
    }
    return null;
  }

  /** Capped exponential backoff with full jitter. */
  private backoff(attempt: number): number {
    const ceiling = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** attempt);
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  }
}

function e(segment: string): string {
  return encodeURIComponent(segment);
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * The service's answers are small: a page is at most 100 records, a problem at most 100 field
 * errors. A body past these sizes is not read further, so a broken or hostile server cannot
 * make the client hold or parse an unbounded answer.
 */
const MAX_SUCCESS_BYTES = 32 * 1024 * 1024;
const MAX_PROBLEM_BYTES = 1024 * 1024;

/**
 * The body as text, or null (its connection closed) once it passes `maxBytes`. Read by 'data'
 * events rather than `for await`, which costs a promise per chunk (measured in bench:client).
 */
function readBounded(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        body.destroy();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    body.once('end', () => {
      resolve(
        chunks.length === 1
          ? (chunks[0] as Buffer).toString('utf8')
          : Buffer.concat(chunks, size).toString('utf8'),
      );
    });
    body.once('error', reject);
  });
}

function parseJson(text: string): unknown {
  if (text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isTimeout(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}
