import type { Dispatcher } from 'undici';

export interface ClientOptions {
  /** The service's base URL, without `/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Per attempt; default 10 s. */
  timeoutMs?: number;
  /** Retries after the first attempt; default 2. Every call of the API is safe to repeat (see retry-policy.ts). */
  maxRetries?: number;
  retryDelay?: {
    /** First backoff; doubles each retry, with equal jitter (see retry-policy.ts). Default 250 ms. */
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
