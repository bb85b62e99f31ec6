/**
 * Text as people type or paste it into a command or a direct message, made plain before reading:
 * quotes, invisible characters, and filters typed with spaces (`value > 100k`) joined.
 */

import { parseAmount, parseDays } from './amounts.ts';

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
 * Without the zero-width space, the word joiner, the byte-order mark, the soft hyphen and the
 * direction marks and overrides (which can also make text read other than it shows): pasted text carries them,
 * and unseen they turned `value>1m` into a word or a refusal that looked like valid input. (The
 * zero-width joiners stay: emoji and Persian or Indic words need them.)
 */
export function dropInvisible(text: string): string {
  return text.replace(/[\u00AD\u200B\u200E\u200F\u202A-\u202E\u2060\u2066-\u2069\uFEFF]/g, '');
}

/** `value > 100k`, `closes <14d`: a comparing filter with spaces around its sign. */
const SPACED_COMPARISON = /\b(value|closes)(\s*)([<>]=?)(\s*)([^\s"]+)(?=\s+(\S+)|\s*$)/gi;
/** Words that would carry on an amount or a time typed with spaces (`value > 1 million`): left as words. */
const UNIT_WORDS = /^(k|m|b|bn|thousand|million|millions|billion|d|day|days|w|week|weeks|£|€|\$)$/i;

/**
 * `value > 100k` as `value>100k`: joined only when spaces stood around the sign, what follows is a
 * whole amount (or number of days), and no unit word carries on after it; never inside quotes. Any
 * other use (`social value > 50%`, `value > 1 million`) is left as typed.
 */
export function joinSpacedComparisons(text: string): string {
  // Nothing to join without a comparing filter: a text of quotes alone would otherwise split into
  // tens of thousands of parts (the parsers must stay linear in what is typed).
  if (!/value|closes/i.test(text)) return text;
  return text
    .split(/("[^"]*")/)
    .map((part) =>
      part.startsWith('"')
        ? part
        : joinSpacedThousands(part).replace(
            SPACED_COMPARISON,
            (
              whole,
              key: string,
              before: string,
              sign: string,
              after: string,
              operand: string,
              next?: string,
            ) => {
              if (!before && !after) return whole;
              const readable =
                key.toLowerCase() === 'value' ? parseAmount(operand) !== null : parseDays(operand) !== null;
              if (!readable || (next !== undefined && UNIT_WORDS.test(next))) return whole;
              return `${key}${sign}${operand}`;
            },
          ),
    )
    .join('');
}

/** `value>100 000`: thousands grouped by spaces (as much of Europe writes them), in threes only. */
const SPACED_THOUSANDS = /\b(value\s*[<>]=?\s*(?:£|€|us\$|ca\$|c\$|\$)?)(\d{1,3}(?: \d{3})+)(?=\s|$)/gi;

/** `value>100 000` as `value>100000`: three digits right after an amount are its thousands, not a word. */
function joinSpacedThousands(text: string): string {
  return text.replace(SPACED_THOUSANDS, (_whole, filter: string, digits: string) => {
    return `${filter}${digits.replace(/ /g, '')}`;
  });
}
