/**
 * Characters that change how the text around them is drawn instead of being drawn: the C0 and C1
 * controls but tab and newline, and Unicode's bidirectional embeddings, overrides and isolates,
 * with which a title or a typed search can show its letters in another order than they are
 * (U+202E turns "cleaning.pdf" around). Arabic and Hebrew letters set their own direction and are
 * untouched, as are the marks LRM and RLM, which only nudge it.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose.
const UNDRAWN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text as it may be drawn, in mrkdwn or plain_text: a character from UNDRAWN, or half of a
 * surrogate pair (not text at all), shows as U+FFFD, so what is shown is what is there; a
 * carriage return before a newline goes.
 */
export function drawable(text: string): string {
  return text.toWellFormed().replace(/\r\n/g, '\n').replace(UNDRAWN, '\uFFFD');
}

/**
 * Text from outside (a tender title, a buyer's name, what a person typed) made safe for mrkdwn:
 * drawable, and `&`, `<` and `>` (Slack's control characters) escaped, so `<!channel>` in a title
 * notifies nobody.
 */
export function escapeMrkdwn(text: string): string {
  return drawable(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Drawable text cut to `max` characters (after escaping, which lengthens it), marking the cut:
 * for plain_text (headers, titles, options) as for escaped mrkdwn.
 */
export function clip(text: string, max: number): string {
  return cut(drawable(text), max);
}

/** `text` (drawable already) cut to `max` characters, never inside an entity or an emoji. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = text.slice(0, max - 1);
  // Never leave half an emoji (a lone surrogate is not text).
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  // Never leave half an entity such as `&am`.
  const amp = kept.lastIndexOf('&');
  if (amp !== -1 && !kept.slice(amp).includes(';')) kept = kept.slice(0, amp);
  return `${kept}…`;
}

/**
 * `text` (escaped already) in pieces of at most `size` characters (at least 100), for consecutive
 * blocks: cut after a line break or a space where one is near the end, never inside an entity or
 * an emoji; nothing lost or added.
 */
export function pieces(text: string, size: number): string[] {
  const limit = Math.max(100, size);
  const parts: string[] = [];
  let rest = text;
  while (rest.length > limit) {
    let end = limit;
    const breakAt = Math.max(rest.lastIndexOf('\n', end - 1), rest.lastIndexOf(' ', end - 1));
    if (breakAt >= end - 200 && breakAt > 0) end = breakAt + 1;
    else {
      if (/[\uD800-\uDBFF]/.test(rest[end - 1] ?? '')) end -= 1;
      const amp = rest.lastIndexOf('&', end - 1);
      if (amp > end - 10 && !rest.slice(amp, end).includes(';')) end = amp;
    }
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  parts.push(rest);
  return parts;
}

/** Escaped and clipped: the usual way outside text enters a block. */
export function safeText(text: string | null | undefined, max: number): string {
  return cut(escapeMrkdwn(text ?? ''), max);
}

/**
 * What a person typed, shown exactly as typed inside mrkdwn: escaped, and with a zero-width space
 * on each side of `*`, `_`, `~` and backticks, which Slack would otherwise take for formatting
 * (it has no escape for them), so `clean*` in a bold heading stays `clean*`.
 */
export function literalText(text: string): string {
  return escapeMrkdwn(text).replace(/[*_~`]/g, (mark) => `\u200B${mark}\u200B`);
}
