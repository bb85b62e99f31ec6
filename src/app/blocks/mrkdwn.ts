/**
 * Text from outside (a tender title, a buyer's name) made safe for mrkdwn: `&`, `<` and `>` are
 * Slack's control characters, so `<!channel>` in a title notifies nobody.
 */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Cuts text to `max` characters (after escaping, which lengthens it), marking the cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  // Never leave half an entity such as `&am`.
  const amp = cut.lastIndexOf('&');
  if (amp !== -1 && !cut.slice(amp).includes(';')) cut = cut.slice(0, amp);
  return `${cut}…`;
}

/** Escaped and clipped: the usual way outside text enters a block. */
export function safeText(text: string | null | undefined, max: number): string {
  return clip(escapeMrkdwn(text ?? ''), max);
}

/**
 * What a person typed, shown exactly as typed inside mrkdwn: escaped, and with a zero-width space
 * on each side of `*`, `_`, `~` and backticks, which Slack would otherwise take for formatting
 * (it has no escape for them), so `clean*` in a bold heading stays `clean*`.
 */
export function literalText(text: string): string {
  return escapeMrkdwn(text).replace(/[*_~`]/g, (mark) => `\u200B${mark}\u200B`);
}
