import {
  ConnectionError,
  type ProcurementClientError,
  RateLimitedError,
  ServerError,
  TimeoutError,
} from './errors.ts';

/**
 * When the client tries a call again. Every operation of the API is safe to repeat, so the
 * policy is the same for all of them: reads change nothing; a comment or pipeline creation
 * carries one idempotency key on every attempt (spec §8 rules 1–2); updates, archive and
 * bookmarks set a desired state (rule 5); deletes of what is already gone succeed. An operation
 * added later that is not safe to repeat must be called with `maxRetries: 0`.
 */
export interface RetryPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

/**
 * The wait before attempt `attempt + 1`, or null when the failure is not worth retrying: only
 * 429, 5xx, connection failures and timeouts are; a 429's `Retry-After` is honoured as given,
 * up to `maxRetryAfterMs`.
 */
export function retryDelay(
  failure: ProcurementClientError,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | null {
  if (failure instanceof RateLimitedError) {
    if (failure.retryAfter === null) return backoffDelay(attempt, policy, random);
    const waitMs = failure.retryAfter * 1000;
    return waitMs <= policy.maxRetryAfterMs ? waitMs : null;
  }
  if (
    failure instanceof ServerError ||
    failure instanceof ConnectionError ||
    failure instanceof TimeoutError
  ) {
    return backoffDelay(attempt, policy, random);
  }
  return null;
}

/**
 * Capped exponential backoff with *equal* jitter: half of the step is always waited, the other
 * half is random. Chosen over full jitter (anywhere from 0 to the step) because this client makes
 * few retries (2 by default) and each counts against the key's rate (spec §8 rule 4): full jitter
 * may draw a retry within a few milliseconds, which hits the same failing service and wastes an
 * attempt, while the random half still spreads many workspaces' clients so that they do not come
 * back in step after an outage.
 */
export function backoffDelay(
  attempt: number,
  policy: Pick<RetryPolicy, 'initialDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}
