/** Amounts and day counts as people type them in filters (`100k`, `£1.5m`, `1m eur`, `14d`). */
import type { ValueCurrency } from '../../../contract/schemas.ts';

/** The currencies amounts may be given in, by the names and codes people type. */
export const CURRENCY_WORDS: Readonly<Record<string, ValueCurrency>> = {
  gbp: 'GBP',
  pound: 'GBP',
  pounds: 'GBP',
  sterling: 'GBP',
  eur: 'EUR',
  euro: 'EUR',
  euros: 'EUR',
  usd: 'USD',
  cad: 'CAD',
};

/** Signs before an amount and the currency each names (`$` alone could be either dollar). */
export const CURRENCY_SIGNS: readonly [string, ValueCurrency | 'dollars'][] = [
  ['£', 'GBP'],
  ['€', 'EUR'],
  ['us$', 'USD'],
  ['ca$', 'CAD'],
  ['c$', 'CAD'],
  ['$', 'dollars'],
];

/** `€1m` → 1,000,000 in EUR; `100k` → 100,000 in no currency named; `$5k` names dollars of no country. */
export function readMoney(text: string): { amount: number; currency?: ValueCurrency | 'dollars' } | null {
  const lower = text.toLowerCase();
  const sign = CURRENCY_SIGNS.find(([prefix]) => lower.startsWith(prefix));
  const amount = parseAmount(sign ? text.slice(sign[0].length) : text);
  if (amount === null) return null;
  return sign ? { amount, currency: sign[1] } : { amount };
}

/** `100k`, `2.5m`, `£250,000` → a number. */
export function parseAmount(text: string): number | null {
  const match = /^[£$€]?(\d+(?:[.,]\d+)*)([kmb])?$/i.exec(text.replace(/,(?=\d{3}\b)/g, ''));
  if (!match?.[1]) return null;
  const base = Number(match[1].replace(',', '.'));
  const multiplier = { k: 1e3, m: 1e6, b: 1e9 }[(match[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  return Number.isFinite(base) ? base * multiplier : null;
}

export function parseDays(text: string): number | null {
  const match = /^(\d{1,4})(d|w)?$/i.exec(text);
  if (!match?.[1]) return null;
  return Number(match[1]) * ((match[2] ?? 'd').toLowerCase() === 'w' ? 7 : 1);
}
