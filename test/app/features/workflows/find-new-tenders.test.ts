import { describe, expect, it } from 'vitest';
import { withTypedOnTop } from '../../../../src/app/features/workflows/find-new-tenders.ts';
import { StepRefusal } from '../../../../src/app/features/workflows/step-run.ts';

// "Find new tenders" with a saved search and typed filters: value bounds keep one currency.
describe('a saved search’s filters with typed ones on top', () => {
  it('a typed value bound in pounds is in pounds, even over a saved search’s bounds in euros', () => {
    const merged = withTypedOnTop(
      { q: 'cleaning', valueMin: 500_000, valueMax: 2_000_000, currency: 'EUR' },
      { valueMin: 1_000_000, valueMax: 3_000_000 },
    );
    expect(merged).toEqual({ q: 'cleaning', valueMin: 1_000_000, valueMax: 3_000_000 });
  });

  it('a typed currency replaces the saved one when every bound is typed', () => {
    expect(
      withTypedOnTop({ valueMin: 1, currency: 'EUR' }, { valueMin: 2_000_000, currency: 'CAD' }),
    ).toEqual({ valueMin: 2_000_000, currency: 'CAD' });
  });

  it('keeps a saved bound only in the typed bound’s currency, and refuses two currencies with a sentence', () => {
    expect(
      withTypedOnTop({ valueMax: 5_000_000, currency: 'EUR' }, { valueMin: 1_000_000, currency: 'EUR' }),
    ).toEqual({ valueMin: 1_000_000, valueMax: 5_000_000, currency: 'EUR' });
    expect(() => withTypedOnTop({ valueMax: 5_000_000, currency: 'EUR' }, { valueMin: 1_000_000 })).toThrow(
      StepRefusal,
    );
    expect(() => withTypedOnTop({ valueMax: 5_000_000, currency: 'EUR' }, { valueMin: 1_000_000 })).toThrow(
      /saved search's value bound is in EUR and the typed one in GBP/,
    );
  });

  it('leaves the saved bounds and their currency alone when no amount is typed', () => {
    expect(withTypedOnTop({ valueMin: 1_000_000, currency: 'CAD' }, { q: 'gritting' })).toEqual({
      valueMin: 1_000_000,
      currency: 'CAD',
      q: 'gritting',
    });
  });
});
