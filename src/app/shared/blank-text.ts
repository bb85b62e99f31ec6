/**
 * Whether text shows nothing: only spaces and invisible characters (zero-width space and joiner,
 * direction marks, controls). Such a comment, name or stage would be stored and shown as nothing.
 */
export function isBlank(text: string): boolean {
  return !/[^\s\p{Cf}\p{Cc}]/u.test(text);
}
