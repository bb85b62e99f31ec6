import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher } from 'undici';
import { z } from 'zod';
import {
  DeadlinePassedError,
  exchange,
  MAX_PROBLEM_BYTES,
  MAX_SUCCESS_BYTES,
  parseJson,
  textOf,
} from './bounded-body.ts';
import {
  AbortedError,
  ApiError,
  ConnectionError,
  MAX_FIELD_ERRORS,
  ProcurementClientError,
  ResponseValidationError,
  TimeoutError,
} from './errors.ts';
import type { CallOptions, ClientOptions } from './options.ts';
import { type RetryPolicy, retryDelay } from './retry-policy.ts';

export type Query = Record<string, string | number | boolean | undefined | null>;

/** One call of the API: what is sent, and the schema its answer is read with. */
export interface Operation<S extends z.ZodType> {
  /** `tenders.get`: names the call in errors. */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** From `/v1`, with path parameters already encoded (`segment`). */
  path: string;
  query?: Query;
  body?: unknown;
  /** The answer's schema: a contract schema, or `NO_CONTENT`. */
  schema: S;
}

/** The answer of a delete (204): whatever body comes is not looked at. */
export const NO_CONTENT = z.unknown().transform((): void => undefined);

/**
 * A path parameter, encoded: an id with `/` or `?` in it stays one segment, and an id of `.` or
 * `..` is sent as `%2E` (a proxy that tidies paths would read it as a step up, to another route).
 */
export function segment(value: string): string {
  const encoded = encodeURIComponent(value);
  return encoded === '.' || encoded === '..' ? encoded.replaceAll('.', '%2E') : encoded;
}

/**
 * Sends operations to the service: the bearer key, a timeout per attempt, retries by the retry
 * policy, bounded bodies, and every answer parsed by its schema or turned into a typed error.
 */
export class HttpTransport {
  readonly baseUrl: string;
  private readonly origin: string;
  /** The base URL's path, without its last slash (`/api` of `http://host/api/`), before each call's. */
  private readonly basePath: string;
  private readonly authorization: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryPolicy: RetryPolicy;
  private attemptCount = 0;

  constructor(options: ClientOptions) {
    const base = new URL(options.baseUrl);
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.baseUrl = `${base.origin}${this.basePath}`;
    this.authorization = `Bearer ${options.apiKey}`;
    this.ownsDispatcher = !options.dispatcher;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: 16 });
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryPolicy = {
      initialDelayMs: options.retryDelay?.initialMs ?? 250,
      maxDelayMs: options.retryDelay?.maxMs ?? 4000,
      maxRetryAfterMs: options.retryDelay?.maxRetryAfterMs ?? 30_000,
    };
  }

  /** Requests sent so far, retries included. */
  get attempts(): number {
    return this.attemptCount;
  }

  /** Closes the transport's own connections (a shared dispatcher is left to its owner). */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  // Keeps the key out of `util.inspect` of anything that holds the transport.
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `HttpTransport { baseUrl: '${this.baseUrl}' }`;
  }

  /** The answer's `data`: what a detail read or a write returns. */
  async data<S extends z.ZodType<{ data: unknown }>>(
    operation: Operation<S>,
    options?: CallOptions,
  ): Promise<z.infer<S>['data']> {
    return (await this.call(operation, options)).data;
  }

  /** The whole answer, parsed by the operation's schema; retried by the retry policy. */
  async call<S extends z.ZodType>(operation: Operation<S>, options: CallOptions = {}): Promise<z.infer<S>> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const path = `${this.basePath}${operation.path}${queryString(operation.query)}`;
    const body = operation.body === undefined ? undefined : JSON.stringify(operation.body);
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';

    for (let attempt = 0; ; attempt++) {
      let failure: ProcurementClientError;
      try {
        return await this.attempt(operation, path, headers, body, options);
      } catch (error) {
        if (!(error instanceof ProcurementClientError)) throw error;
        failure = error;
      }
      const delayMs = retryDelay(failure, attempt, this.retryPolicy);
      if (attempt >= maxRetries || delayMs === null) throw failure;
      try {
        await sleep(delayMs, undefined, { signal: options.signal });
      } catch {
        throw new AbortedError(`${operation.name} was cancelled`);
      }
    }
  }

  private async attempt<S extends z.ZodType>(
    operation: Operation<S>,
    path: string,
    headers: Record<string, string>,
    body: string | undefined,
    options: CallOptions,
  ): Promise<z.infer<S>> {
    if (options.signal?.aborted) throw new AbortedError(`${operation.name} was cancelled`);
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    // The deadline: no answer's headers within timeoutMs, a body silent for timeoutMs, or a body
    // still arriving past it (checked as each part arrives). A long deadline is kept by undici's
    // own timers, which tick about once a second: a per-call AbortController and timer cost about
    // 9 µs of a 130 µs detail read (bench:client: 1.16x a bare request with them, 1.09x without).
    // A short one (tests, a caller in a hurry) has a timer of its own, so it is kept to the ms.
    const deadlineAt = performance.now() + timeoutMs;
    const ownTimer = timeoutMs < PRECISE_BELOW_MS;
    const deadline = ownTimer ? new AbortController() : null;
    const timer = deadline ? setTimeout(() => deadline.abort(), timeoutMs) : null;
    timer?.unref();
    const signal =
      options.signal && deadline
        ? AbortSignal.any([options.signal, deadline.signal])
        : (options.signal ?? deadline?.signal);
    this.attemptCount++;
    let status: number;
    let text: string | null;
    // Flattened only when an error needs them (most answers are read and parsed, nothing more).
    let rawHeaders: Record<string, string | string[] | undefined>;
    try {
      const answer = await exchange(this.dispatcher, {
        origin: this.origin,
        path,
        method: operation.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        ...(signal ? { signal } : {}),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        maxBytes: (answered) => (answered >= 200 && answered < 300 ? MAX_SUCCESS_BYTES : MAX_PROBLEM_BYTES),
        deadlineAt,
      });
      status = answer.status;
      rawHeaders = answer.headers;
      text = textOf(answer);
    } catch (error) {
      if (options.signal?.aborted) throw new AbortedError(`${operation.name} was cancelled`);
      if (deadline?.signal.aborted || isTimeout(error)) {
        throw new TimeoutError(`${operation.name}: no answer from ${this.origin} within ${timeoutMs} ms`);
      }
      throw new ConnectionError(
        `${operation.name}: the connection to ${this.origin} failed (${errorCode(error)})`,
        { cause: error },
      );
    } finally {
      if (timer) clearTimeout(timer);
    }
    const json = text === null ? null : parseJson(text);
    if (status < 200 || status >= 300) throw ApiError.from(status, json, flattenHeaders(rawHeaders));
    if (text === null) {
      throw new ResponseValidationError(
        operation.name,
        [{ path: '', message: `the body is larger than ${MAX_SUCCESS_BYTES / 1024 / 1024} MiB` }],
        flattenHeaders(rawHeaders)['x-request-id'] ?? null,
      );
    }
    const parsed = operation.schema.safeParse(json);
    if (!parsed.success) {
      throw new ResponseValidationError(
        operation.name,
        parsed.error.issues
          .slice(0, MAX_FIELD_ERRORS)
          .map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
        flattenHeaders(rawHeaders)['x-request-id'] ?? null,
      );
    }
    return parsed.data;
  }
}

/** Deadlines shorter than this get a timer of their own (undici's tick about once a second). */
const PRECISE_BELOW_MS = 3000;

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

/** undici's code (`ECONNREFUSED`, `UND_ERR_SOCKET`), else the error's name. */
function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return error instanceof Error ? error.name : 'unknown error';
}

function isTimeout(error: unknown): boolean {
  if (error instanceof DeadlinePassedError) return true;
  const code = errorCode(error);
  return (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  );
}
