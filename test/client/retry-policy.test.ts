import { describe, expect, it } from 'vitest';
import {
  AbortedError,
  ApiError,
  ConnectionError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  ValidationError,
} from '../../src/client/errors.ts';
import { backoffDelay, type RetryPolicy, retryDelay } from '../../src/client/retry-policy.ts';

const policy: RetryPolicy = { initialDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
const answer = { status: 503, code: 'internal_error', detail: 'down', requestId: null, headers: {} };

describe('backoffDelay: capped exponential backoff with equal jitter', () => {
  it('always waits half the step, and at most the whole step', () => {
    for (const attempt of [0, 1, 2, 3]) {
      const step = 100 * 2 ** attempt;
      expect(backoffDelay(attempt, policy, () => 0)).toBe(step / 2);
      expect(backoffDelay(attempt, policy, () => 0.5)).toBe(step * 0.75);
      expect(backoffDelay(attempt, policy, () => 0.999_999)).toBe(step);
    }
  });

  it('stops doubling at maxDelayMs', () => {
    expect(backoffDelay(4, policy, () => 0)).toBe(500);
    expect(backoffDelay(20, policy, () => 0.999_999)).toBe(1000);
  });

  it('spreads clients: different random draws give different waits within the band', () => {
    const waits = new Set([0.1, 0.3, 0.6, 0.9].map((draw) => backoffDelay(2, policy, () => draw)));
    expect(waits.size).toBe(4);
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(200);
  });
});

describe('retryDelay: what is worth another attempt', () => {
  it('backs off after 5xx, connection failures and timeouts', () => {
    const failures = [new ServerError(answer), new ConnectionError('refused'), new TimeoutError('silent')];
    for (const failure of failures) expect(retryDelay(failure, 1, policy, () => 0)).toBe(100);
  });

  it('waits what Retry-After says, up to maxRetryAfterMs; backs off when it says nothing', () => {
    const limited = (retryAfter: number | null) =>
      new RateLimitedError({ ...answer, status: 429, code: 'rate_limited' }, retryAfter);
    expect(retryDelay(limited(2), 0, policy)).toBe(2000);
    expect(retryDelay(limited(6), 0, policy)).toBeNull();
    expect(retryDelay(limited(null), 0, policy, () => 0)).toBe(50);
  });

  it('never retries what another attempt cannot fix, nor a cancelled call', () => {
    const refused = [
      new ValidationError({ ...answer, status: 400, code: 'invalid_request' }, []),
      new ApiError({ ...answer, status: 403, code: 'forbidden' }),
      new AbortedError('cancelled'),
    ];
    for (const failure of refused) expect(retryDelay(failure, 0, policy)).toBeNull();
  });
});
