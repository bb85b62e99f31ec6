import { VALUE_CURRENCIES, type ValueCurrency, type ValueRule } from '../../contract/schemas.ts';

/**
 * The rule for value filters (`valueMin`, `valueMax`): bounds are amounts in one currency (GBP
 * unless the search names another), and a tender whose value is in another currency is compared
 * after converting its amount at the reference rates below, one fixed table of one date, kept
 * here as data so that every answer can name it. A tender whose currency has no rate here is
 * never listed under a value bound (it cannot be compared honestly); a tender with no currency
 * recorded is in GBP, as the API shows it.
 */

/**
 * Euro foreign exchange reference rates of the European Central Bank: units of each currency for
 * one euro, on REFERENCE_RATES_DATE. Only the currencies the public records hold (the UK notices:
 * GBP and EUR; Buyandsell: CAD) and USD. Transcribed into the repository by hand: to move to a
 * newer date, replace the date and every figure together from the ECB's published table.
 */
export const EURO_REFERENCE_RATES = {
  EUR: 1,
  GBP: 0.82918,
  USD: 1.0389,
  CAD: 1.4948,
} as const;

/** Every currency with a rate: the currencies a stored amount can be converted from. */
export const EXCHANGEABLE_CURRENCIES = Object.keys(EURO_REFERENCE_RATES);

export const REFERENCE_RATES_DATE = '2024-12-31';
export const REFERENCE_RATES_SOURCE = 'European Central Bank euro foreign exchange reference rates';

export { DEFAULT_VALUE_CURRENCY } from '../../contract/schemas.ts';

/** The currency a stored amount is in when none was recorded (the API shows it as GBP too). */
export const STORED_CURRENCY_WHEN_NONE = 'GBP';

/**
 * The number an amount in `from` is multiplied by to be in `to`: exactly 1 for one currency
 * (so an amount in the bound's own currency is compared unchanged), else through the euro.
 * NaN when `from` has no rate: NaN fails every comparison, as NULL does in SQL.
 */
export function conversionFactor(from: string, to: ValueCurrency): number {
  if (from === to) return 1;
  const fromRate = (EURO_REFERENCE_RATES as Record<string, number>)[from];
  if (fromRate === undefined) return Number.NaN;
  return EURO_REFERENCE_RATES[to] / fromRate;
}

export function valueRuleFor(currency: ValueCurrency): ValueRule {
  const others = VALUE_CURRENCIES.filter((other) => other !== currency);
  return {
    currency,
    ratesDate: REFERENCE_RATES_DATE,
    ratesSource: REFERENCE_RATES_SOURCE,
    rates: { ...EURO_REFERENCE_RATES },
    summary:
      `Amounts in ${currency}; tenders in ${others.join(', ')} converted at the ECB reference rates of ` +
      `${REFERENCE_RATES_DATE}; tenders in any other currency are not compared.`,
  };
}
