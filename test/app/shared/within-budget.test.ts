import { describe, expect, it, vi } from 'vitest';
import { withinBudget } from '../../../src/app/shared/within-budget.ts';

const resolvesAfter = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('withinBudget', () => {
  it('gives a quick result at once, and the same result later', async () => {
    // On fake timers: the answer comes when the work is done, with the budget's time not passed.
    vi.useFakeTimers();
    try {
      let answered: Awaited<ReturnType<typeof withinBudget<string>>> | null = null;
      void withinBudget(resolvesAfter(10, 'done'), 1000).then((answer) => {
        answered = answer;
      });
      await vi.advanceTimersByTimeAsync(10);
      expect(answered).not.toBeNull();
      const { quick, outcome } = answered as unknown as Awaited<ReturnType<typeof withinBudget<string>>>;
      expect(quick).toEqual({ value: 'done' });
      expect(await outcome).toEqual({ value: 'done' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives a quick failure as an error, without throwing', async () => {
    const failure = new Error('down');
    const { quick, outcome } = await withinBudget(Promise.reject(failure), 1000);
    expect(quick).toEqual({ error: failure });
    expect(await outcome).toEqual({ error: failure });
  });

  it('gives null when the work outlasts the budget; the outcome still settles', async () => {
    const { quick, outcome } = await withinBudget(resolvesAfter(300, 'late'), 20);
    expect(quick).toBeNull();
    expect(await outcome).toEqual({ value: 'late' });
  });

  it('a late failure settles as an error', async () => {
    const failure = new Error('late failure');
    const late = resolvesAfter(300, null).then(() => {
      throw failure;
    });
    const { quick, outcome } = await withinBudget(late, 20);
    expect(quick).toBeNull();
    expect(await outcome).toEqual({ error: failure });
  });

  it('with no budget gives null even for work already done; the outcome still settles', async () => {
    const { quick, outcome } = await withinBudget(Promise.resolve('done'), 0);
    expect(quick).toBeNull();
    expect(await outcome).toEqual({ value: 'done' });
  });
});
