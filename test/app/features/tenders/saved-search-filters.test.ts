import { describe, expect, it } from 'vitest';
import { filtersOf } from '../../../../src/app/shared/commands/saved-search-filters.ts';
import { searchHeading } from '../../../../src/app/shared/views/describe-search.ts';

const saved = (query: Record<string, unknown>) => ({
  id: 'ss-1',
  name: 'Snow',
  query,
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt: '2026-11-01T00:00:00Z',
});

describe('a saved search’s filters', () => {
  it('keeps the currency of its value bounds, so its run compares in that currency and says so', () => {
    const filters = filtersOf(saved({ q: 'snow removal', valueMin: 1_000_000, currency: 'CAD' }) as never);
    expect(filters).toEqual({ q: 'snow removal', valueMin: 1_000_000, currency: 'CAD' });
    expect(searchHeading(filters)).toBe('Tenders matching “snow removal”, worth CA$1,000,000 or more');
  });

  it('reads a currency in any letter case, and only with a value bound', () => {
    expect(filtersOf(saved({ valueMax: 5, currency: 'eur' }) as never)).toEqual({
      valueMax: 5,
      currency: 'EUR',
    });
    expect(filtersOf(saved({ q: 'snow', currency: 'EUR' }) as never)).toEqual({ q: 'snow' });
  });

  it('keeps a currency the service does not take, so the search is refused rather than run in pounds', () => {
    const filters = filtersOf(saved({ valueMin: 5, currency: 'JPY' }) as never);
    expect(filters).toEqual({ valueMin: 5, currency: 'JPY' });
    expect(searchHeading(filters)).not.toContain('£');
  });
});
