/**
 * A character that shows: not white space, a control, an invisible format character (zero-width
 * space and joiner, direction marks, the byte-order mark), nor a letter or sign drawn blank (the
 * Hangul fillers, the blank Braille pattern, variation selectors). Text without one shows as
 * nothing: a comment, name or stage of it would be stored and drawn empty, in Slack as through the API.
 */
export const SHOWS = /[^\s\p{Cf}\p{Cc}\p{Variation_Selector}\u115F\u1160\u2800\u3164\uFFA0]/u;

/** Whether text shows nothing: only spaces and invisible characters. */
export function isBlank(text: string): boolean {
  return !SHOWS.test(text);
}
