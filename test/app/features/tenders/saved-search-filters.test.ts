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
    expect(searchHeading(filters)).toBe('Tenders matching “snow removal”, over CA$1,000,000');
  });

  it('leaves out a currency the service does not take', () => {
    expect(filtersOf(saved({ valueMin: 5, currency: 'JPY' }) as never)).toEqual({ valueMin: 5 });
  });
});
