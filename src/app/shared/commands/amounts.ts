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

/** The currency a word names (`eur`, `Pounds`), else undefined: `constructor` names none. */
export function currencyOfWord(word: string): ValueCurrency | undefined {
  const lower = word.toLowerCase();
  return Object.hasOwn(CURRENCY_WORDS, lower) ? CURRENCY_WORDS[lower] : undefined;
}

/** Every ISO 4217 code Node's ICU knows (162 on Node 20). */
const ISO_CURRENCY_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/**
 * Codes that are also words or abbreviations bid teams search for (`pen` testing, `php`, a `mop`,
 * `cve` scanning, `sar` helicopters, `ils` upgrades, `all`, `top`): no note for these.
 */
const CODES_THAT_ARE_WORDS = new Set([
  'all',
  'amd',
  'bam',
  'bob',
  'cop',
  'crc',
  'cup',
  'cve',
  'gel',
  'ils',
  'mad',
  'mnt',
  'mop',
  'pen',
  'php',
  'rub',
  'sar',
  'sos',
  'svc',
  'tmt',
  'top',
  'try',
  'yer',
]);

/** Currencies the service has no rates for, by the names people write after an amount. */
const UNCONVERTED_NAMES: Readonly<Record<string, string>> = {
  yen: 'JPY',
  yuan: 'CNY',
  renminbi: 'CNY',
  franc: 'CHF',
  francs: 'CHF',
  rupee: 'INR',
  rupees: 'INR',
  zloty: 'PLN',
  zlotys: 'PLN',
  kronor: 'SEK',
};

/**
 * The first word of `words` that names a currency the service has no rates for (`jpy`, `yen` →
 * JPY), else null. Codes that are also words people search for stay unremarked.
 */
export function unconvertedCurrencyIn(words: string): { word: string; currency: string } | null {
  for (const word of words.split(/\s+/)) {
    const lower = word.toLowerCase();
    const named = Object.hasOwn(UNCONVERTED_NAMES, lower) ? UNCONVERTED_NAMES[lower] : undefined;
    if (named) return { word, currency: named };
    if (!/^[a-z]{3}$/.test(lower) || Object.hasOwn(CURRENCY_WORDS, lower) || CODES_THAT_ARE_WORDS.has(lower))
      continue;
    const upper = lower.toUpperCase();
    if (ISO_CURRENCY_CODES.has(upper)) return { word, currency: upper };
  }
  return null;
}

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

/**
 * The largest amount a value filter takes: a quadrillion, far past any contract, and well inside the
 * 16 whole digits the service reads (a larger number would reach it as `1e+21` and be refused).
 */
export const MAX_VALUE_AMOUNT = 1e15;

/**
 * Why an amount that reads cannot be a bound, or null: past MAX_VALUE_AMOUNT, or finer than a
 * hundredth (the service reads six decimals at most, and money is not counted finer than pennies).
 */
export function amountProblem(amount: number): string | null {
  if (amount > MAX_VALUE_AMOUNT) return 'is more than a search takes (1,000,000,000,000,000 at most)';
  if (Math.abs(Math.round(amount * 100) - amount * 100) > 1e-6) return 'is finer than a penny or cent';
  return null;
}

/** `100k`, `2.5m`, `£250,000` → a number. */
export function parseAmount(text: string): number | null {
  const match = /^[£$€]?(\d+(?:[.,]\d+)*)([kmb])?$/i.exec(text.replace(/,(?=\d{3}(?!\d))/g, ''));
  if (!match?.[1]) return null;
  // What is left is a number with at most one decimal point or comma (`1.5m`, `1,5m`): a comma not
  // in groups of three (`1,50,000`, `10,0000`) is no amount, where it was read as a decimal (1.5).
  if (!/^\d+(?:\.\d+|,\d{1,2})?$/.test(match[1])) return null;
  const base = Number(match[1].replace(',', '.'));
  const multiplier = { k: 1e3, m: 1e6, b: 1e9 }[(match[2] ?? '').toLowerCase() as 'k' | 'm' | 'b'] ?? 1;
  // To six decimals, as the service reads them: 2.01 × 1e6 is 2009999.9999999998 in binary, and
  // would be searched (and shown) a hair under £2,010,000; finer amounts stay finer, to be refused.
  return Number.isFinite(base) ? Number((base * multiplier).toFixed(6)) : null;
}

/** The most days a `closes<` or `closes>` window reaches: ten years (a number beyond is said so). */
export const MOST_DAYS_AHEAD = 3650;

/** `14`, `14d` or `2w` as days; a number of any length reads, so one too large is said as such. */
export function parseDays(text: string): number | null {
  const match = /^(\d+)(d|w)?$/i.exec(text);
  if (!match?.[1]) return null;
  return Number(match[1]) * ((match[2] ?? 'd').toLowerCase() === 'w' ? 7 : 1);
}
