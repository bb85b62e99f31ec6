import type { Tender } from '../../../contract/schemas.ts';

// Intl formatters are costly to build (about a millisecond each); a card of five tenders used to
// build a dozen per message. Each is built once here and reused.
const DAY = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const WHOLE_NUMBER = new Intl.NumberFormat('en-GB');
const PENCE = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Currency formatters by code; codes come from the data, so the map is bounded. */
const MONEY = new Map<string, Intl.NumberFormat | null>();
const MONEY_FORMATTERS_KEPT = 64;

/** `1 Dec 2026` (UTC). */
export function formatDayOf(date: Date): string {
  const time = date.getTime();
  if (Number.isNaN(time)) return 'an unknown date';
  // Formatting costs microseconds and every card formats its deadline: one string per UTC day.
  const day = Math.floor(time / 86_400_000);
  const known = DAYS.get(day);
  if (known !== undefined) return known;
  const formatted = DAY.format(date);
  if (DAYS.size >= DAYS_KEPT) DAYS.clear();
  DAYS.set(day, formatted);
  return formatted;
}
const DAYS = new Map<number, string>();
/** Days formatted and kept (about eleven years of distinct deadlines). */
const DAYS_KEPT = 4096;

/** `1 Dec 2026, 09:30 UTC`: a moment in UTC words (plain text, and a date token's fallback). */
export function formatMomentUtc(date: Date): string {
  return `${formatDayOf(date)}, ${formatTimeOf(date)} UTC`;
}

/** `09:30` (UTC). */
export function formatTimeOf(date: Date): string {
  const time = date.getTime();
  if (Number.isNaN(time)) return 'an unknown time';
  // Every card gives its deadline's time: arithmetic, as en-GB's two-digit hour and minute in UTC
  // write it (held to Intl's output by the formats test), not a formatter call each.
  const minutes = Math.floor((((time % 86_400_000) + 86_400_000) % 86_400_000) / 60_000);
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * Currencies whose mark reads as another's (`F CFA` and `FCFA`: the West and Central African
 * francs): shown by their ISO code. Every other mark en-GB draws names one currency only (`CA$`,
 * `US$`, `€`, `£`; test/app/blocks/formats.test.ts checks all of them), so a card never shows a
 * bare `$` that could be any dollar.
 */
const SHOWN_BY_CODE = new Set(['XAF', 'XOF']);

/**
 * Amounts notices give when they give none: a form that wants a number gets 0, 0.01 or 1 (Sell2Wales
 * publishes £0.01), in whatever currency. Read as "Not stated", as a missing value, never as a price.
 */
const PLACEHOLDER_AMOUNTS = new Set([0, 0.01, 1]);

/** A currency as ISO 4217 writes one (upper-cased first). */
const ISO_CURRENCY_CODE = /^[A-Z]{3}$/;

/** What a placeholder amount reads as: as no value at all does, since it is none. */
export const VALUE_NOT_GIVEN = 'Not stated';

/**
 * `£1,250,000`, `CA$355,820`: what a tender (or framework) is worth, in its own currency, always
 * with its currency; a placeholder amount reads "Not stated", as a missing one does. Whole units, but an amount under one
 * keeps its pence (`£0.40`), so nothing real reads as `£0`.
 */
export function formatMoney(value: Tender['value']): string {
  if (!value) return 'Not stated';
  // Not a price: a placeholder, a negative (real notices hold -989 CAD), or less than a penny (it
  // would read £0.00).
  if (PLACEHOLDER_AMOUNTS.has(value.amount) || !(value.amount >= 0.01)) return VALUE_NOT_GIVEN;
  const currency = value.currency.trim().toUpperCase();
  // A currency that is no ISO code (empty, `pounds`, or 2,000 characters that would make the whole
  // answer too long for Slack) is not shown as if it were one.
  if (!ISO_CURRENCY_CODE.test(currency))
    return `${formatAmount(value.amount, '').trim()} (currency not given)`;
  return formatAmount(value.amount, currency);
}

/**
 * formatMoney inside a sentence (`· value CA$2,000,000`, `· value not stated`): only the words are
 * lower case; a currency's mark stays as drawn (`CA$`, not `ca$`), so it names its currency still.
 */
export function formatMoneyInline(value: Tender['value']): string {
  const money = formatMoney(value);
  return /^\p{Lu}\p{Ll}/u.test(money) ? money.charAt(0).toLowerCase() + money.slice(1) : money;
}

/** An amount in whole units of its currency (a card's value), but one under a unit with its pence. */
export function formatAmount(amount: number, currencyAsGiven: string): string {
  // Below one unit (but not nothing) whole units would round to 0: two decimals instead.
  return formatIn(amount, currencyAsGiven, amount > 0 && amount < 1);
}

/**
 * A search's bound exactly as it bounds (`over £0` means what it says): `value>1.5` is over £1.50,
 * never "over £2", and `value<999.99` up to £999.99, never "up to £1,000". A bound is at most
 * pence (finer ones are refused as typed), so two decimals are exact.
 */
export function formatBound(amount: number, currencyAsGiven: string): string {
  // Whole when it is whole to the penny: a binary hair off (1e-10) is no pence to show.
  return formatIn(amount, currencyAsGiven, Math.round(amount * 100) % 100 !== 0);
}

function formatIn(amount: number, currencyAsGiven: string, pence: boolean): string {
  const currency = currencyAsGiven.toUpperCase();
  const formatter = SHOWN_BY_CODE.has(currency) ? null : moneyFormatter(currency, pence);
  return formatter
    ? formatter.format(amount)
    : `${(pence ? PENCE : WHOLE_NUMBER).format(amount)} ${currency}`;
}

function moneyFormatter(currency: string, pence: boolean): Intl.NumberFormat | null {
  const key = `${currency}|${pence}`;
  const kept = MONEY.get(key);
  if (kept !== undefined) return kept;
  let formatter: Intl.NumberFormat | null;
  try {
    formatter = new Intl.NumberFormat('en-GB', {
      style: 'currency',
      currency,
      ...(pence ? { minimumFractionDigits: 2, maximumFractionDigits: 2 } : { maximumFractionDigits: 0 }),
    });
  } catch {
    // Not an ISO 4217 code: shown as the number and the code as given.
    formatter = null;
  }
  if (MONEY.size >= MONEY_FORMATTERS_KEPT) MONEY.delete(MONEY.keys().next().value as string);
  MONEY.set(key, formatter);
  return formatter;
}

/** `8,547`: a number as people read it, grouped by thousands. */
export function grouped(count: number): string {
  return count.toLocaleString('en-GB');
}

/** "1 notice", "8,547 notices": a count as people read it, grouped by thousands, with its noun. */
export function counted(count: number, noun: string, plural = `${noun}s`): string {
  return `${grouped(count)} ${count === 1 ? noun : plural}`;
}
