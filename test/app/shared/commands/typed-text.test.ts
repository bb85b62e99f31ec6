import { describe, expect, it } from 'vitest';
import { dropInvisible, normaliseTyped } from '../../../../src/app/shared/commands/typed-text.ts';

describe('text as typed, made plain before reading', () => {
  it('straightens quotes, drops invisible characters and reads a filter’s ≥ and ≤', () => {
    expect(normaliseTyped('“school meals” «Leeds» it’s \u200Bvalue≥1m closes ≤ 14d')).toBe(
      '"school meals" "Leeds" it\'s value>=1m closes <= 14d',
    );
  });

  it('keeps the zero-width joiners and a ≥ that is no filter’s', () => {
    const emoji = '\u{1F468}\u200D\u{1F4BB}';
    expect(dropInvisible(`\uFEFF${emoji}\u2060`)).toBe(emoji);
    expect(normaliseTyped('score≥5')).toBe('score≥5');
    // Persian keeps its zero-width non-joiner.
    expect(dropInvisible('می\u200Cخواهم')).toBe('می\u200Cخواهم');
  });

  it('drops the soft hyphen and the direction marks and overrides, which make text read other than it shows', () => {
    expect(dropInvisible('Wa\u00ADles\u200E \u200Fcleaning\u202E \u2066x\u2069')).toBe('Wales cleaning x');
  });
});
