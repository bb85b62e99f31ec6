import { cutText } from '../../../shared/cut-text.ts';

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
  // Most text has nothing to change: tested once rather than copied three times (every card's
  // every field passes here).
  if (text.isWellFormed() && !TO_DRAW.test(text)) return text;
  return text.toWellFormed().replace(/\r\n/g, '\n').replace(UNDRAWN, '\uFFFD');
}
/** UNDRAWN and a carriage return, without the `g` flag (a test that keeps no state). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is its purpose.
const TO_DRAW = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;

declare const mrkdwnBrand: unique symbol;

/**
 * Text Slack parses as mrkdwn, made only by this module: by escaping outside text (`text`,
 * `safeText`, `code`, `literalText`), by the `mrkdwn` template over the app's own literals, or by
 * joining other Mrkdwn. Every mrkdwn field and every message's `text` takes this type, never
 * `string`, so outside text given to one unescaped is a compile error (../shared/STYLE.md,
 * safevalues' SafeHtml). At run time it is a plain string: it serialises and reads as one.
 */
export type Mrkdwn = string & { readonly [mrkdwnBrand]: true };

/** The one way a string becomes Mrkdwn: only after this module has made it safe. */
function trusted(text: string): Mrkdwn {
  return text as Mrkdwn;
}

/**
 * Formatting marks of outside text, drawn as look-alikes that Slack never pairs: `*urgent*` in a
 * title must not end the card's `*title*` (Slack has no escape for them, and a zero-width space
 * beside each would be copied along with the text).
 */
const MARK_LOOKALIKES: Record<string, string> = { '*': '\u2217', _: '\u02CD', '~': '\u223C', '`': '\u02CB' };

function escapeControls(text: string): string {
  const drawn = drawable(text);
  return CONTROLS.test(drawn)
    ? drawn.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    : drawn;
}
const CONTROLS = /[&<>]/;

/**
 * Text from outside (a tender title, a buyer's name, a comment) made safe for mrkdwn: drawable,
 * `&`, `<` and `>` (Slack's control characters) escaped, so `<!channel>` in a title notifies
 * nobody, and formatting marks that could pair drawn as look-alikes, so they format nothing.
 */
export function escapeMrkdwn(text: string): Mrkdwn {
  return trusted(neutralised(escapeControls(text)));
}

/**
 * `*`, `_` and `~` as look-alikes wherever they could open or close formatting (beside a space,
 * punctuation or either end), kept inside a word (`on_hold`, `A*B`), where Slack never pairs
 * them, so most names copy as they are; a backtick always.
 */
function neutralised(escaped: string): string {
  if (!MARKS.test(escaped)) return escaped;
  return escaped.replace(/[*_~`]/g, (mark, at: number) =>
    mark !== '`' && WORD_CHARACTER.test(escaped[at - 1] ?? '') && WORD_CHARACTER.test(escaped[at + 1] ?? '')
      ? mark
      : (MARK_LOOKALIKES[mark] ?? mark),
  );
}
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
const MARKS = /[*_~`]/;

/**
 * `escapeMrkdwn` by a shorter name, for outside text inside a `mrkdwn` template.
 * @alias
 */
export const text = escapeMrkdwn;

/**
 * Drawable text cut to `max` characters (after escaping, which lengthens it), marking the cut:
 * for plain_text (headers, titles, options) as for Mrkdwn, which stays Mrkdwn.
 */
export function clip(text: string, max: number): string {
  return cut(drawable(text), max, 'plain');
}

/** `clip` for Mrkdwn, which it stays: never cut inside a link, mention or date (`<…>`). */
export function clipMrkdwn(text: Mrkdwn, max: number): Mrkdwn {
  return trusted(cut(drawable(text), max, 'mrkdwn'));
}

/** The start of an entity left at the end of a cut (`&`, `&am`, `&#12`). */
const HALF_ENTITY = /&#?[a-z0-9]{0,8}$/i;
/** The start of one of escapeControls' entities (`&l`, `&am`, `&g`), at least a letter of it. */
const HALF_ESCAPE = /&(?:a|am|amp|l|lt|g|gt)$/;

/** How a link, mention or date of the app's starts (outside text has its `<` escaped). */
const CONTROL_START = /^<(!date\^|[@#!]|https?:|mailto:)/;

/**
 * `text` (drawable already) cut to `max` characters, never inside an entity or a character, nor, in
 * mrkdwn, inside a `<…>` of the app's (plain text shows a `<` as typed, and keeps what follows it).
 */
function cut(text: string, max: number, kind: 'plain' | 'mrkdwn'): string {
  if (text.length <= max) return text;
  let kept = cutText(text, max - 1);
  // Never leave half an entity such as `&am` at the end: in mrkdwn (escaped, so each `&` starts
  // one) any tail from an `&`; in plain text only the start of an escape's entity (`&l`, `&am`),
  // since its `&` is as typed ("Cleaning & catering for…" was once cut to "Cleaning …", "R&…" stays).
  kept = kept.replace(kind === 'mrkdwn' ? HALF_ENTITY : HALF_ESCAPE, '');
  // Nor half a link, mention or date, which Slack would show as its raw letters.
  const opened = kept.lastIndexOf('<');
  if (
    kind === 'mrkdwn' &&
    opened !== -1 &&
    !kept.includes('>', opened) &&
    CONTROL_START.test(kept.slice(opened))
  )
    kept = kept.slice(0, opened);
  return `${kept}…`;
}

/**
 * `text` (Mrkdwn) in pieces of at most `size` characters (at least 100), for consecutive blocks:
 * cut after a line break or a space where one is near the end, never inside an entity, an emoji
 * or a link, mention or date (unless one alone is longer than a piece); nothing lost or added.
 */
export function pieces(text: Mrkdwn, size: number): Mrkdwn[] {
  const limit = Math.max(100, size);
  const parts: Mrkdwn[] = [];
  let rest: string = text;
  while (rest.length > limit) {
    let end = limit;
    const breakAt = Math.max(rest.lastIndexOf('\n', end - 1), rest.lastIndexOf(' ', end - 1));
    if (breakAt >= end - 200 && breakAt > 0) end = breakAt + 1;
    else {
      end = cutText(rest, end).length;
      const amp = rest.lastIndexOf('&', end - 1);
      if (amp > end - 10 && !rest.slice(amp, end).includes(';')) end = amp;
    }
    // Never inside a link, mention or date (`<…>`: outside text has its `<` escaped, so each is the app's).
    const opened = rest.lastIndexOf('<', end - 1);
    if (opened > 0 && opened > rest.lastIndexOf('>', end - 1)) end = opened;
    parts.push(trusted(rest.slice(0, end)));
    rest = rest.slice(end);
  }
  parts.push(trusted(rest));
  return parts;
}

/** Escaped and clipped: the usual way outside text enters a block. */
export function safeText(text: string | null | undefined, max: number): Mrkdwn {
  return trusted(cut(escapeMrkdwn(text ?? ''), max, 'mrkdwn'));
}

/**
 * Outside text that must copy exactly as it is (an id, a command, a search as typed) as a code
 * span, where Slack formats nothing: only `&`, `<` and `>` escaped (shown and copied as
 * themselves). A code span cannot hold a backtick, so one is drawn as its look-alike, nor end a
 * line (its marks would show, and what follows would be formatted), so line breaks are spaces.
 */
export function code(text: string, max = 3000): Mrkdwn {
  const oneLine = text.replace(/[\r\n\t\v\f\u2028\u2029]+/g, ' ');
  return trusted(
    `\`${cut(escapeControls(oneLine).replace(/`/g, MARK_LOOKALIKES['`'] ?? '`'), max, 'mrkdwn')}\``,
  );
}

/**
 * What a person typed, shown back so that it reads and copies exactly as typed: escaped as it is
 * when no formatting mark in it could pair, else as a code span (where `clean*` stays `clean*`).
 */
export function literalText(text: string): Mrkdwn {
  const escaped = escapeControls(text);
  return neutralised(escaped) === escaped ? trusted(escaped) : code(text);
}

/** A mention of a Slack user (ids the app itself holds); anything else is shown as text. */
export function mention(userId: string): Mrkdwn {
  return /^[UW][A-Z0-9]+$/.test(userId) ? trusted(`<@${userId}>`) : escapeMrkdwn(userId);
}

/** A link to a channel by its id; anything else is shown as text. */
export function channelLink(channelId: string): Mrkdwn {
  return /^[CGD][A-Z0-9]+$/.test(channelId) ? trusted(`<#${channelId}>`) : escapeMrkdwn(channelId);
}

/**
 * A link `<url|label>`: only http(s) addresses without spaces or the link's own delimiters (else
 * null), `&` escaped in the address; the label is Mrkdwn (`text(name)` for outside text).
 */
export function link(url: string | null | undefined, label: Mrkdwn): Mrkdwn | null {
  const address = webUrl(url, 2000);
  if (!address) return null;
  return trusted(`<${address.replace(/&/g, '&amp;')}|${label}>`);
}

declare const webUrlBrand: unique symbol;

/**
 * An address a person's browser may open from a button (`url`), made only by `webUrl`: Block
 * Kit's `url` fields take this type, never `string`, so an address from outside (a notice's URL
 * in the data) reaches a button only once checked.
 */
export type WebUrl = string & { readonly [webUrlBrand]: true };

/**
 * `raw` when it is an http(s) address a browser opens as it reads (parsed by URL, its spaces as
 * `%20`, without other blanks, controls, quotes or mrkdwn's `<>|`) and no longer than `max`
 * (Slack's 3,000 for a button's); else null: a `javascript:` or `data:` address, or one cut short,
 * is no link at all.
 */
export function webUrl(raw: string | null | undefined, max = 3000): WebUrl | null {
  if (!raw) return null;
  // A space inside a publisher's address is written as a browser sends it (`%20`), not a reason to
  // drop the link; one around it is no part of it.
  const address = raw.trim().replace(/ /g, '%20');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is its purpose.
  if (address.length > max || !/^https?:\/\/[^\s<>|"\\\u0000-\u001F\u007F-\u009F]+$/i.test(address))
    return null;
  if (!URL.canParse(address)) return null;
  return address as WebUrl;
}

/**
 * How a moment reads in Slack's date token, in the reader's own time zone and clock (`Dec 2, 2026
 * at 1:00 PM`): a deadline says it is the reader's time, since the notice and the fallback give UTC.
 */
const MOMENT_TOKENS = {
  moment: '{date_short} at {time}',
  deadline: '{date_short} at {time} your time',
} as const;

/**
 * A moment as Slack's date token `<!date^seconds^tokens|fallback>`: each person reads it in their
 * own zone (a UTC deadline of 12:00 is 13:00 in London's summer); `fallback` (the app's own words,
 * in UTC) is what Slack shows where it draws no token, in notifications. An unknown moment is the
 * fallback alone.
 */
export function localMoment(instant: Date, shape: keyof typeof MOMENT_TOKENS, fallback: string): Mrkdwn {
  const time = instant.getTime();
  const shown = escapeControls(fallback.replace(/\|/g, '/'));
  // Slack's token counts seconds from 1970: a moment before it (a broken record's 1900) is words.
  if (Number.isNaN(time) || time < 0) return trusted(shown);
  return trusted(`<!date^${Math.floor(time / 1000)}^${MOMENT_TOKENS[shape]}|${shown}>`);
}

/** A piece a `mrkdwn` template may hold: Mrkdwn as it is, or a number (digits are safe). */
export type MrkdwnPiece = Mrkdwn | number;

/**
 * The app's own mrkdwn: the literal parts are the app's (written in mrkdwn already, entities for
 * `<` and `>`), every interpolated piece is Mrkdwn or a number. Outside text goes in through
 * `text()`, `safeText()` or `code()`: a run-time string cannot say whether it was escaped, so a
 * plain `string` here is a compile error rather than a guess.
 */
export function mrkdwn(literals: TemplateStringsArray, ...values: readonly MrkdwnPiece[]): Mrkdwn {
  // Only a real template's literals: an array made at run time could carry anything.
  if (!Array.isArray(literals.raw)) throw new TypeError('mrkdwn is a template tag');
  let out = literals[0] ?? '';
  values.forEach((value, index) => {
    out += typeof value === 'number' ? String(value) : value;
    out += literals[index + 1] ?? '';
  });
  return trusted(out);
}

/** Mrkdwn pieces joined by a Mrkdwn separator (a list of names, lines). */
export function joinMrkdwn(parts: readonly Mrkdwn[], separator: Mrkdwn = trusted('')): Mrkdwn {
  return trusted(parts.join(separator));
}

/** Mrkdwn with its first character in lower case: a heading inside a sentence. */
export function lowerFirst(heading: Mrkdwn): Mrkdwn {
  return trusted(heading.charAt(0).toLowerCase() + heading.slice(1));
}

/** Each line of `body` after `depth` em spaces: a reply under its parent. */
export function indentLines(body: Mrkdwn, depth: number): Mrkdwn {
  if (depth <= 0) return body;
  const pad = '\u2003'.repeat(depth);
  return trusted(
    body
      .split('\n')
      .map((line) => `${pad}${line}`)
      .join('\n'),
  );
}

/**
 * Mrkdwn the app made earlier and stored (a saved feed's description): kept as written when it
 * holds no `<` or `>` (so no mention, link or @channel can be in it), else escaped whole as text.
 */
export function storedMrkdwn(stored: string): Mrkdwn {
  return /[<>]/.test(stored) ? escapeMrkdwn(stored) : trusted(drawable(stored));
}

/**
 * What follows `lead` at the start of `phrase` (null when it does not start so). The lead is
 * letters, spaces and commas only, so the cut never falls inside an escape or a mark.
 */
export function afterLead(phrase: Mrkdwn, lead: string): Mrkdwn | null {
  if (!/^[\p{L} ,]+$/u.test(lead) || !phrase.startsWith(lead)) return null;
  return trusted(phrase.slice(lead.length));
}

/** Mrkdwn with its first character in upper case: a phrase starting a sentence. */
export function upperFirst(phrase: Mrkdwn): Mrkdwn {
  return trusted(phrase.charAt(0).toUpperCase() + phrase.slice(1));
}
