/**
 * A character that shows: not white space, a control, nor an invisible format character
 * (zero-width space and joiner, direction marks, the byte-order mark). Text without one shows as
 * nothing: a comment, name or stage of it would be stored and drawn empty, in Slack as through the API.
 */
export const SHOWS = /[^\s\p{Cf}\p{Cc}]/u;

/** Whether text shows nothing: only spaces and invisible characters. */
export function isBlank(text: string): boolean {
  return !SHOWS.test(text);
}
