import { describe, expect, it } from 'vitest';
import { printedReferencesIn } from '../../../../src/app/features/links/find-tender.ts';

describe('references as printed, in a message', () => {
  it('finds Buyandsell numbers, Contracts Finder notice ids and sources’ own codes, in order, once each', () => {
    expect(
      printedReferencesIn(
        'what about PW-14-00627094? and 5a115892-5c5e-4646-8a8f-150c9708a9dc, (14-2015) or PW-14-00627094',
      ),
    ).toEqual(['PW-14-00627094', '5a115892-5c5e-4646-8a8f-150c9708a9dc', '14-2015']);
  });

  it('leaves out words, dates, amounts, filters and short codes', () => {
    expect(
      printedReferencesIn(
        'school catering 2026-12-01 1/12/2026 £100k value>100k region:Wales A-1 well-being',
      ),
    ).toEqual([]);
  });
});

describe('a word too long to be a reference', () => {
  it('is passed over, not trimmed', () => {
    expect(printedReferencesIn(`PW-14-00627094${')'.repeat(500)} and (14-2015).`)).toEqual(['14-2015']);
  });
});
