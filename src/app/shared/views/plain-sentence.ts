/*
 * Sentences for Workflow Builder's error field, which Slack shows as plain text: mrkdwn there
 * shows its backticks and `&lt;` as typed. The type keeps Mrkdwn out: a part that is Mrkdwn is a
 * compile error, and the app's mrkdwn sentences come over only through `plainOf`.
 */
import type { Mrkdwn } from './mrkdwn.ts';

declare const plainBrand: unique symbol;

/** A sentence with no mrkdwn in it, for a plain-text field. */
export type PlainSentence = string & { readonly [plainBrand]: true };

/**
 * A part of a plain sentence: any text or number, but never Mrkdwn (its marks would show), nor a
 * type that may be Mrkdwn (a union holding it, `any`): checked whole, not member by member.
 */
type PlainPart<T> = 0 extends 1 & T
  ? never
  : [Extract<T, Mrkdwn>] extends [never]
    ? [T] extends [string | number]
      ? T
      : never
    : never;

/** A plain sentence from the app's literals and outside text (`plain\`No stage “${typed}”.\``). */
export function plainSentence<const T extends readonly unknown[]>(
  literals: TemplateStringsArray,
  ...parts: { [K in keyof T]: PlainPart<T[K]> }
): PlainSentence {
  let text = literals[0] ?? '';
  parts.forEach((part, index) => {
    text += String(part) + (literals[index + 1] ?? '');
  });
  return text as PlainSentence;
}

/**
 * One of the app's mrkdwn sentences as plain text: links as their words, `<@U…>` as `@U…`,
 * `<!here>` as `@here`, code marks and bold, italic and strike marks dropped, Slack's three
 * escapes read back, and the look-alikes outside text was drawn with (mrkdwn.ts) as typed, so
 * "Run `/tender connect me`" reads "Run /tender connect me" and "*Q3*" reads "Q3". Inside a
 * code span nothing but the backticks goes: what a person typed there (`clean*`) stays.
 */
export function plainOf(sentence: Mrkdwn): PlainSentence {
  const unlinked = sentence
    .replace(/<(?:[^|>]*)\|([^>]*)>/g, '$1')
    .replace(/<!([^>|]*)>/g, '@$1')
    .replace(/<([^>|]*)>/g, '$1');
  // Split at backticks: odd pieces are code spans.
  const pieces = unlinked.split('`').map((piece, index) => (index % 2 === 1 ? piece : unmarked(piece)));
  return pieces
    .join('')
    .replace(LOOKALIKE, (lookalike) => MARK_OF_LOOKALIKE[lookalike] ?? lookalike)
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&') as PlainSentence;
}

/**
 * `*`, `_` and `~` where they format (beside a space, punctuation or either end) dropped: in the
 * app's Mrkdwn only its own marks stand there, outside text's were drawn as look-alikes; one
 * inside a word (`on_hold`, `A*B`) formats nothing and stays.
 */
function unmarked(piece: string): string {
  return piece.replace(/[*_~]/g, (mark, at: number) =>
    WORD_CHARACTER.test(piece[at - 1] ?? '') && WORD_CHARACTER.test(piece[at + 1] ?? '') ? mark : '',
  );
}

const WORD_CHARACTER = /[\p{L}\p{N}]/u;
/**
 * The look-alikes escapeMrkdwn draws marks with (mrkdwn.ts), back to the marks. Read back from
 * rendered text this cannot tell a drawn mark from a look-alike a person typed (`∼` shows as
 * `~`): typed marks are common in searches, typed look-alikes all but unheard of.
 */
const MARK_OF_LOOKALIKE: Record<string, string> = {
  '\u2217': '*',
  '\u02CD': '_',
  '\u223C': '~',
  '\u02CB': '`',
};
const LOOKALIKE = /[\u2217\u02CD\u223C\u02CB]/g;

/**
 * A view submission's answer with sentences under its fields. Slack shows them as plain text, so
 * each is a PlainSentence: one of the app's mrkdwn sentences comes over only through `plainOf`
 * (given as it is, its backticks and `&lt;` would show as typed). Every such answer is made here.
 */
export interface FieldErrors {
  response_action: 'errors';
  errors: Readonly<Record<string, PlainSentence>>;
}

export function fieldErrors(errors: Readonly<Record<string, PlainSentence>>): FieldErrors {
  return { response_action: 'errors', errors };
}
