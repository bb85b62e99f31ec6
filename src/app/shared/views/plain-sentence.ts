/*
 * Sentences for Workflow Builder's error field, which Slack shows as plain text: mrkdwn there
 * shows its backticks and `&lt;` as typed. The type keeps Mrkdwn out: a part that is Mrkdwn is a
 * compile error, and the app's mrkdwn sentences come over only through `plainOf`.
 */
import type { Mrkdwn } from './mrkdwn.ts';

declare const plainBrand: unique symbol;

/** A sentence with no mrkdwn in it, for a plain-text field. */
export type PlainSentence = string & { readonly [plainBrand]: true };

/** A part of a plain sentence: any text or number, but never Mrkdwn (its marks would show). */
type PlainPart<T> = T extends Mrkdwn ? never : T extends string | number ? T : never;

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
 * One of the app's mrkdwn sentences as plain text: links as their words, code marks dropped, and
 * Slack's three escapes read back, so "Run `/tender connect me`" reads "Run /tender connect me".
 */
export function plainOf(sentence: Mrkdwn): PlainSentence {
  return sentence
    .replace(/<(?:[^|>]*)\|([^>]*)>/g, '$1')
    .replace(/<([^>|]*)>/g, '$1')
    .replace(/`/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&') as PlainSentence;
}
