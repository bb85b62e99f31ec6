import { describe, expect, it } from 'vitest';
import { pageRange } from '../../../../src/app/shared/views/list-paging.ts';

describe('which part of a list a page shows', () => {
  it('says one item as one, a range with thousands grouped, and none', () => {
    expect(pageRange(0, 1, 1)).toBe('1 of 1');
    expect(pageRange(4, 1, 5)).toBe('5 of 5');
    expect(pageRange(0, 5, 59)).toBe('1–5 of 59');
    expect(pageRange(1_995, 5, 12_000)).toBe('1,996–2,000 of 12,000');
    expect(pageRange(0, 0, 3)).toBe('none of 3');
  });
});
