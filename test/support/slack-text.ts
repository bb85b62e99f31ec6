/**
 * Reading what the app sent to Slack: every string Slack parses as mrkdwn (a message's `text`,
 * sections' text and fields, context elements, confirm dialogs, unfurls' blocks), and the text a
 * test searches in a message (its `text` and its blocks, never one without the other).
 */

// biome-ignore lint/suspicious/noExplicitAny: walks loose Block Kit JSON of any shape.
type Json = any;

/** A message's `text` and its blocks as one string to search in: what a person can read of it. */
export function textOf(message: { text?: string | null; blocks?: unknown } | unknown): string {
  if (message === null || message === undefined) return '';
  if (typeof message !== 'object') return String(message);
  const { text, blocks, ...rest } = message as { text?: unknown; blocks?: unknown };
  const parts = [typeof text === 'string' ? text : '', JSON.stringify(blocks ?? [])];
  // Anything else the value holds (a view, an unfurl, a body): searched too.
  if (Object.keys(rest).length > 0) parts.push(JSON.stringify(rest));
  return parts.join(' ');
}

/** Where a mrkdwn string was found in a payload, and the string. */
export interface MrkdwnString {
  at: string;
  text: string;
}

/**
 * Every string Slack would parse as mrkdwn in a message-like payload: its top-level `text` (Slack
 * reads it for notifications), and every text object of type mrkdwn at any depth of its blocks,
 * attachments and unfurls (sections' text and fields, context elements, confirm dialogs' text).
 */
export function mrkdwnStrings(payload: Json, at = 'message'): MrkdwnString[] {
  const found: MrkdwnString[] = [];
  if (payload && typeof payload.text === 'string') found.push({ at: `${at}.text`, text: payload.text });
  const walk = (value: Json, where: string) => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        walk(item, `${where}[${index}]`);
      });
      return;
    }
    if (!value || typeof value !== 'object') return;
    if (value.type === 'mrkdwn' && typeof value.text === 'string')
      found.push({ at: where, text: value.text });
    for (const [key, child] of Object.entries(value))
      if (key !== 'text' || typeof child === 'object') walk(child, `${where}.${key}`);
  };
  walk(payload?.blocks, `${at}.blocks`);
  walk(payload?.attachments, `${at}.attachments`);
  walk(payload?.unfurls, `${at}.unfurls`);
  return found;
}

/**
 * What Slack would act on in a mrkdwn string: a special mention (`<!channel>`, `<!here>`,
 * `<!everyone>`; not the app's own date token of a moment), a user mention that is not one of `allowedUsers`, a link whose address is not
 * one of `allowedLinks`; and `*…*` / `_…_` / `~…~` pairs outside code spans that hold `planted`.
 */
export function markupIn(
  text: string,
  options: {
    allowedUsers?: readonly string[];
    allowedLinkPrefixes?: readonly string[];
    planted?: string;
  } = {},
): string[] {
  const problems: string[] = [];
  for (const match of text.matchAll(/<([^<>]*)>/g)) {
    const inner = match[1] ?? '';
    // A date token as the app writes one (`localMoment`): it notifies nobody; its fallback is the app's words.
    const date = /^!date\^\d{1,11}\^\{date_short\} at \{time\}( your time)?\|([^|]*)$/.exec(inner);
    if (date && !(options.planted && (date[2] ?? '').includes(options.planted))) continue;
    if (inner.startsWith('!')) problems.push(`special mention ${match[0]}`);
    else if (inner.startsWith('@')) {
      const id = inner.slice(1).split('|')[0] ?? '';
      if (!(options.allowedUsers ?? []).includes(id)) problems.push(`user mention ${match[0]}`);
    } else if (inner.startsWith('#')) continue;
    else {
      const address = inner.split('|')[0] ?? '';
      if (!(options.allowedLinkPrefixes ?? []).some((prefix) => address.startsWith(prefix)))
        problems.push(`link ${match[0]}`);
    }
  }
  if (options.planted) {
    // Code spans are drawn as they are: formatting inside them is not formatting.
    const outsideCode = text.replace(/`[^`\n]*`/g, ' ');
    for (const mark of ['*', '_', '~'])
      if (outsideCode.includes(`${mark}${options.planted}${mark}`))
        problems.push(`${mark}${options.planted}${mark} pairs`);
  }
  return problems;
}
