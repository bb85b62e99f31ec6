/** What the rate limiter decided for one request, with what the `RateLimit-*` headers report. */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Keys remembered at once; past this, the key whose window started longest ago is forgotten. */
export const DEFAULT_MAX_TRACKED_KEYS = 10_000;

const WINDOW_MS = 1000;

/**
 * A fixed one-second window per key. Every accepted attempt counts, retries included (spec §8
 * rule 4). In memory (the local service is one process) and bounded: a key's count lives only
 * as long as its window, and at most `maxKeys` keys are remembered at once.
 */
export class RateLimiter {
  // Insertion order is the order windows started: a key is moved to the end when its window
  // opens, so the oldest windows are always first and forgetting them costs nothing per request.
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly maxKeys = DEFAULT_MAX_TRACKED_KEYS) {}

  /** Keys currently remembered. */
  get size(): number {
    return this.windows.size;
  }

  take(keyId: string, limitPerSecond: number, nowMs: number): RateDecision {
    const start = nowMs - (nowMs % WINDOW_MS);
    let window = this.windows.get(keyId);
    if (!window || window.start !== start) {
      this.windows.delete(keyId);
      this.forgetBefore(start);
      window = { start, count: 0 };
      this.windows.set(keyId, window);
    }
    window.count++;
    return {
      allowed: window.count <= limitPerSecond,
      limit: limitPerSecond,
      remaining: Math.max(0, limitPerSecond - window.count),
      resetSeconds: Math.max(1, Math.ceil((start + WINDOW_MS - nowMs) / 1000)),
    };
  }

  /** Drops windows that ended (their counts no longer matter), then the oldest while over the bound. */
  private forgetBefore(start: number): void {
    for (const [keyId, window] of this.windows) {
      if (window.start >= start && this.windows.size < this.maxKeys) return;
      this.windows.delete(keyId);
    }
  }
}
