/* The words of a typed bid command, where a phrase in quotes is one word: `stage BID-2 "Draft response" done`. */
import { normaliseTyped } from '../../shared/commands/typed-text.ts';

/** One word as typed: a quoted phrase is one, its quotes dropped (`quoted` says it was one). */
export interface TypedWord {
  text: string;
  quoted: boolean;
}

/**
 * A phrase in double quotes; a phrase in single quotes that closes at a word's end (so `Buyer's
 * questions` stays two words); a word with a quoted part (`status:"on hold"`); any other word.
 */
const WORD = /"([^"]*)"|'([^']*)'(?!\S)|(\S*?"[^"]*"\S*|\S+)/g;

/**
 * The words of what was typed after `/tender pipeline` (curly quotes read as straight ones, as
 * every command reads them). A quote left open is dropped, and the words after it read as typed.
 */
export function typedWords(typed: string): TypedWord[] {
  const words: TypedWord[] = [];
  for (const match of normaliseTyped(typed).matchAll(WORD)) {
    const phrase = match[1] ?? match[2];
    if (phrase !== undefined) {
      const text = phrase.trim();
      if (text) words.push({ text, quoted: true });
      continue;
    }
    const text = (match[3] as string).replace(/"/g, '');
    if (text) words.push({ text, quoted: false });
  }
  return words;
}
