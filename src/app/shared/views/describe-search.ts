import { VALUE_CURRENCIES, type ValueRule } from '../../../contract/schemas.ts';
import { SEARCH_WORDS_MAX, type TenderSearchFilters } from '../commands/parse-command.ts';
import type { RegionRead } from '../commands/region-words.ts';
import { formatBound, formatDayOf } from './formats.ts';
import { clip, code, joinMrkdwn, literalText, type Mrkdwn, mrkdwn, text as plain } from './mrkdwn.ts';

/**
 * What a description of a search with value bounds says after them: the service's rule, or that it
 * could not be read just now (never a rule the app made up).
 */
export type KnownValueRule = ValueRule | 'unread';

/**
 * How a search reads back to a person: `“cleaning” in North West, open, worth £100,000 or more`, and after
 * value bounds the rule they are compared by, when given.
 */
export function describeSearch(
  filters: TenderSearchFilters,
  buyerName?: string,
  rule?: KnownValueRule,
  /** Today (`YYYY-MM-DD`): a closing window that starts later than today is said from its start. */
  options: { today?: string } = {},
): Mrkdwn {
  const parts: Mrkdwn[] = [];
  // The bounds' currency: the one the search named, else the service's (GBP when it names none).
  const currency = filters.currency ?? (rule === 'unread' ? undefined : rule?.currency) ?? 'GBP';
  if (filters.q) parts.push(mrkdwn`“${literalText(filters.q)}”`);
  if (filters.region) parts.push(mrkdwn`in ${literalText(filters.region)}`);
  if (filters.status) parts.push(plain(filters.status));
  if (filters.cpv) parts.push(plain(`with a CPV code starting ${filters.cpv}`));
  // Amounts as the cards show them, in the currency the bounds are in, but never rounded.
  // The service takes both bounds inclusively: `value>100k` and `value>=100k` both mean £100,000 or more.
  if (filters.valueMin !== undefined)
    parts.push(plain(`worth ${formatBound(filters.valueMin, currency)} or more`));
  if (filters.valueMax !== undefined) parts.push(plain(`up to ${formatBound(filters.valueMax, currency)}`));
  // Both bounds take their day (`closes>3d` lists what closes on that day): "on or after". A lower
  // bound later than today (`closes>3d closes<33d`, "closing next month") is said, not dropped.
  const from = filters.deadlineFrom ? formatDayOf(new Date(filters.deadlineFrom)) : null;
  if (filters.deadlineTo) {
    const to = formatDayOf(endOfDay(filters.deadlineTo));
    const later = from && options.today && (filters.deadlineFrom ?? '') > options.today;
    // One day (`closing tomorrow`, `closes>3d closes<3d`): "closing on" it.
    if (from && filters.deadlineFrom === filters.deadlineTo) parts.push(plain(`closing on ${to}`));
    else parts.push(plain(later ? `closing from ${from} to ${to}` : `closing by ${to}`));
  } else if (from) parts.push(plain(`closing on or after ${from}`));
  if (filters.buyerId)
    parts.push(buyerName ? mrkdwn`from ${literalText(buyerName)}` : mrkdwn`from the chosen buyer`);
  if (parts.length === 0) return mrkdwn`everything`;
  const described = joinMrkdwn(parts, mrkdwn`, `);
  const bounded = filters.valueMin !== undefined || filters.valueMax !== undefined;
  return rule && bounded ? mrkdwn`${described}; ${valueRuleSentence(rule)}` : described;
}

/**
 * A search as the heading of its results: `Open tenders matching “cleaning”, in North West,
 * closing by 6 Dec 2026`, `Tenders worth £100,000 or more`, `All tenders`. The status reads as an adjective.
 */
export function searchHeading(
  filters: TenderSearchFilters,
  buyerName?: string,
  savedName?: string,
  /** The rule the service applied to the value bounds, from its answer: said after them. */
  rule?: KnownValueRule,
  options: { today?: string } = {},
): Mrkdwn {
  const { status, ...narrowing } = filters;
  const label = plain(status ? `${STATUS_WORDS[status]} tenders` : 'Tenders');
  const description = describeSearch(narrowing, buyerName, rule, options);
  const heading =
    description === 'everything'
      ? status
        ? label
        : mrkdwn`All tenders`
      : narrowing.q
        ? mrkdwn`${label} matching ${description}`
        : mrkdwn`${label} ${description}`;
  return savedName ? mrkdwn`${heading} (saved search “${literalText(savedName)}”)` : heading;
}

/**
 * A search takes so many words: the rest are said to be left out, not silently dropped (with where
 * the cut fell, when the words searched are given).
 */
export function wordsCutSentence(searched?: string): Mrkdwn {
  const upTo = searched ? mrkdwn` (up to “${literalText(lastWords(searched))}”)` : mrkdwn``;
  return mrkdwn`Only the first ${SEARCH_WORDS_MAX} characters of the words were searched${upTo}. Use fewer words to search for the others.`;
}

/** The last few words of `text`, to say where a cut search ends. */
export function lastWords(text: string): string {
  // Whole words only (the cut is between words), and at most the last three of no more than 60
  // characters in all: a long last word is shown alone.
  const words = text.split(' ');
  let shown = words.at(-1) ?? '';
  for (const word of words.slice(-3, -1).reverse()) {
    if (shown.length + 1 + word.length > 60) break;
    shown = `${word} ${shown}`;
  }
  return shown;
}

/** The longest rates source said (in characters): enough for any bank's name. */
const RATES_SOURCE_MAX = 60;

/**
 * The rule the service compared values by, as a heading says it: `amounts in other currencies
 * converted at the ECB rates of 2024-12-31` (tenders in a currency without a rate are not listed).
 */
export function valueRuleSentence(rule: KnownValueRule): Mrkdwn {
  if (rule === 'unread')
    return plain('how amounts in other currencies are converted could not be read from the service just now');
  // The contract sets no length on the source's name: a long one is cut, not drawn whole.
  const source = /^European Central Bank\b/i.test(rule.ratesSource)
    ? 'ECB'
    : clip(rule.ratesSource, RATES_SOURCE_MAX);
  return plain(`amounts in other currencies converted at the ${source} rates of ${rule.ratesDate}`);
}

export const STATUS_WORDS: Record<NonNullable<TenderSearchFilters['status']>, string> = {
  planned: 'Planned',
  open: 'Open',
  closed: 'Closed',
  awarded: 'Awarded',
  cancelled: 'Cancelled',
};

/** A date filter (`2026-12-06`) or an instant, as the moment it stands for. */
export function endOfDay(dateOrInstant: string): Date {
  return new Date(/^\d{4}-\d{2}-\d{2}$/.test(dateOrInstant) ? `${dateOrInstant}T00:00:00Z` : dateOrInstant);
}

/** What a search with a currency the service has no rates for (`value>1m jpy`) was read as. */
export function currencyWordSentence(read: { word: string; currency: string }): Mrkdwn {
  // Codes in capitals, the typed one too (`jpy` is said as JPY), as a person reads currencies.
  const named = VALUE_CURRENCIES;
  return mrkdwn`${code(read.word, 10)} was searched for as a word, and the amounts read in pounds: the tender service compares values in ${plain(`${named.slice(0, -1).join(', ')} or ${named.at(-1)}`)}, not ${plain(read.currency.toUpperCase())}. To compare in one of those, name it after the amount, as in ${code('value>1m eur')}.`;
}

/** What a search was read as, when a region was read with the words after it. */
export function regionReadSentence(read: RegionRead): Mrkdwn {
  return mrkdwn`Read ${code(`region:${read.typed}`, 110)} as ${code(`region:"${read.region}"`, 110)}: a region of more than one word goes in quotes.`;
}
