/** Text as people type or paste it into a command or a direct message, made plain before reading. */

/** Typographic quotes as straight ones, invisible characters dropped, `≥`/`≤` after a filter as `>=`/`<=`. */
export function normaliseTyped(text: string): string {
  return (
    dropInvisible(text)
      .replace(/[\u201C\u201D\u201E\u00AB\u00BB]/g, '"')
      .replace(/[\u2018\u2019]/g, "'")
      // Phones and word processors turn `>=` into one sign (only a filter's: `score≥5` is a word).
      .replace(/\b(value|closes)(\s*)\u2265/gi, '$1$2>=')
      .replace(/\b(value|closes)(\s*)\u2264/gi, '$1$2<=')
  );
}

/**
 * Without the zero-width space, the word joiner and the byte-order mark: pasted text carries them,
 * and unseen they turned `value>1m` into a word or a refusal that looked like valid input. (The
 * zero-width joiners stay: emoji and Persian or Indic words need them.)
 */
export function dropInvisible(text: string): string {
  return text.replace(/[\u200B\u2060\uFEFF]/g, '');
}
