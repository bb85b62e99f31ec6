import { describe, expect, it } from 'vitest';
import { formatDayOf, formatMoney, formatTimeOf } from '../../../../src/app/shared/views/formats.ts';

describe('the formats cards share', () => {
  it('formats money in its own currency, and any code the data gives', () => {
    expect(formatMoney({ amount: 1_250_000, currency: 'GBP' })).toBe('£1,250,000');
    expect(formatMoney({ amount: 355_820.4, currency: 'CAD' })).toBe('CA$355,820');
    expect(formatMoney({ amount: 1000, currency: 'not a code' })).toBe('1,000 not a code');
    expect(formatMoney(null)).toBe('Not stated');
  });

  it('names every ISO currency by a mark of its own (no bare `$` shared by several)', () => {
    const marks = new Map<string, string>();
    for (const code of Intl.supportedValuesOf('currency')) {
      const mark = formatMoney({ amount: 1, currency: code }).replace(/[\d\s.,\u00a0]/g, '');
      expect(marks.get(mark), `${code} and ${marks.get(mark)} drawn alike`).toBeUndefined();
      marks.set(mark, code);
    }
    expect(formatMoney({ amount: 1_000_000, currency: 'USD' })).toBe('US$1,000,000');
  });

  it('keeps answering the same for many currency codes (the kept formatters are bounded)', () => {
    const codes = Array.from({ length: 200 }, (_, index) => `Q${String(index).padStart(2, '0')}`);
    expect(codes.length).toBe(200);
    for (const code of codes) expect(formatMoney({ amount: 5, currency: code })).toBe(`5 ${code}`);
    expect(formatMoney({ amount: 5, currency: 'EUR' })).toBe('€5');
  });

  it('formats days and times in UTC, as Slack readers expect, and says when a date is unknown', () => {
    const instant = new Date('2026-12-01T23:30:00Z');
    expect(formatDayOf(instant)).toBe('1 Dec 2026');
    expect(formatTimeOf(instant)).toBe('23:30');
    expect(formatDayOf(new Date('not a date'))).toBe('an unknown date');
  });
});
