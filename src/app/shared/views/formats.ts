import type { Tender } from '../../../contract/schemas.ts';

// Intl formatters are costly to build (about a millisecond each); a card of five tenders used to
// build a dozen per message. Each is built once here and reused.
const DAY = new Intl.DateTimeFormat('en-GB', {
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  timeZone: 'UTC',
});
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });
const WHOLE_NUMBER = new Intl.NumberFormat('en-GB');

/** Currency formatters by code; codes come from the data, so the map is bounded. */
const MONEY = new Map<string, Intl.NumberFormat | null>();
const MONEY_FORMATTERS_KEPT = 64;

/** `1 Dec 2026` (UTC). */
export function formatDayOf(date: Date): string {
  return Number.isNaN(date.getTime()) ? 'an unknown date' : DAY.format(date);
}

/** `09:30` (UTC). */
export function formatTimeOf(date: Date): string {
  return Number.isNaN(date.getTime()) ? 'an unknown time' : TIME.format(date);
}

/**
 * Currencies whose mark reads as another's (`F CFA` and `FCFA`: the West and Central African
 * francs): shown by their ISO code. Every other mark en-GB draws names one currency only (`CA$`,
 * `US$`, `€`, `£`; test/app/blocks/formats.test.ts checks all of them), so a card never shows a
 * bare `$` that could be any dollar.
 */
const SHOWN_BY_CODE = new Set(['XAF', 'XOF']);

/** `£1,250,000`, `CA$355,820`: the amount in its own currency, always with its currency. */
export function formatMoney(value: Tender['value']): string {
  if (!value) return 'Not stated';
  if (SHOWN_BY_CODE.has(value.currency)) return `${WHOLE_NUMBER.format(value.amount)} ${value.currency}`;
  const formatter = moneyFormatter(value.currency);
  return formatter
    ? formatter.format(value.amount)
    : `${WHOLE_NUMBER.format(value.amount)} ${value.currency}`;
}

function moneyFormatter(currency: string): Intl.NumberFormat | null {
  const kept = MONEY.get(currency);
  if (kept !== undefined) return kept;
  let formatter: Intl.NumberFormat | null;
  try {
    formatter = new Intl.NumberFormat('en-GB', { style: 'currency', currency, maximumFractionDigits: 0 });
  } catch {
    // Not an ISO 4217 code: shown as the number and the code as given.
    formatter = null;
  }
  if (MONEY.size >= MONEY_FORMATTERS_KEPT) MONEY.delete(MONEY.keys().next().value as string);
  MONEY.set(currency, formatter);
  return formatter;
}
