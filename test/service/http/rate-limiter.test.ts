import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/service/http/rate-limiter.ts';

describe('the rate limiter forgets', () => {
  it('keeps a key only while its one-second window lasts', () => {
    const limiter = new RateLimiter();
    const start = 1_000_000;
    for (let index = 0; index < 5000; index++) limiter.take(`key-${index}`, 10, start + 10);
    expect(limiter.size).toBe(5000);
    // One request in the next window: every window that ended is dropped.
    limiter.take('key-new', 10, start + 1000);
    expect(limiter.size).toBe(1);
  });

  it('remembers at most maxKeys keys, even when all are in the same window', () => {
    const limiter = new RateLimiter(100);
    for (let index = 0; index < 10_000; index++) limiter.take(`key-${index}`, 10, 5_000_000);
    expect(limiter.size).toBeLessThanOrEqual(100);
    expect(limiter.size).toBeGreaterThan(0);
  });

  it('still counts each key within its window while it forgets others', () => {
    const limiter = new RateLimiter(100);
    const decisions = Array.from({ length: 4 }, () => limiter.take('busy', 3, 7_000_100));
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0, 0]);
    for (let index = 0; index < 50; index++) limiter.take(`other-${index}`, 3, 7_000_200);
    expect(limiter.take('busy', 3, 7_000_300).allowed).toBe(false);
    expect(limiter.take('busy', 3, 7_001_000).allowed).toBe(true);
  });
});
