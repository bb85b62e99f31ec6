import { describe, expect, it } from 'vitest';
import { withinBudget } from '../../../src/app/features/within-budget.ts';

const resolvesAfter = <T>(ms: number, value: T) =>
  new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('withinBudget', () => {
  it('gives a quick result at once, and the same result later', async () => {
    const started = Date.now();
    const { quick, outcome } = await withinBudget(resolvesAfter(10, 'done'), 1000);
    expect(Date.now() - started).toBeLessThan(900);
    expect(quick).toEqual({ value: 'done' });
    expect(await outcome).toEqual({ value: 'done' });
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
});
