/** The words the parsers' problem sentences say things with. */

import type { ValueCurrency } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { escapeMrkdwn, type Mrkdwn } from '../views/mrkdwn.ts';

/** A value as typed, said back in a problem: never more of it than a sentence can hold. */
export function typedValue(value: string): string {
  return cutText(value, 41, '…');
}

/** Names in words, the last after "or": `planned, open, closed, awarded or cancelled`. */
export function orList(names: readonly string[]): Mrkdwn {
  const last = names.at(-1) ?? '';
  return escapeMrkdwn(names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${last}` : last);
}

/** The currencies amounts are compared in, as a person says them. */
const CURRENCY_NAMES: Record<ValueCurrency, string> = {
  GBP: 'pounds',
  EUR: 'euros',
  USD: 'US dollars',
  CAD: 'Canadian dollars',
};

/** Currencies as a person says them, joined: `euros and pounds`. */
export function spokenCurrencies(currencies: readonly ValueCurrency[]): Mrkdwn {
  return escapeMrkdwn(currencies.map((named) => CURRENCY_NAMES[named]).join(' and '));
}
