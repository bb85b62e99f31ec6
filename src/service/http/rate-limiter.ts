/** What the rate limiter decided for one request, with what the `RateLimit-*` headers report. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * A fixed one-second window per key. Every accepted attempt counts, retries included (spec §8
 * rule 4). In memory: the local service is one process.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  take(keyId: string, limitPerSecond: number, nowMs: number): RateDecision {
    const start = nowMs - (nowMs % 1000);
    let window = this.windows.get(keyId);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(keyId, window);
    }
    window.count++;
    return {
      allowed: window.count <= limitPerSecond,
      limit: limitPerSecond,
      remaining: Math.max(0, limitPerSecond - window.count),
      resetSeconds: Math.max(1, Math.ceil((start + 1000 - nowMs) / 1000)),
    };
  }
}
