import { describe, expect, it } from 'vitest';
import { isBlank } from '../../src/contract/visible-text.ts';

describe('isBlank', () => {
  it('is true for spaces and invisible characters only, false once anything shows', () => {
    for (const blank of [
      '',
      '   ',
      '\u200B',
      ' \u200D\u200E\u2060 ',
      '\uFEFF\u202E',
      '\t\n\u0007',
      // Drawn blank: Hangul fillers, the blank Braille pattern, a variation selector alone.
      '\u3164\u115F',
      '\u2800\u2800',
      '\uFE0F',
    ])
      expect(isBlank(blank), JSON.stringify(blank)).toBe(true);
    for (const shown of ['a', ' 1 ', '\u200Bé', '🚀', '\u0301', '·'])
      expect(isBlank(shown), JSON.stringify(shown)).toBe(false);
  });
});
