/** The words the parsers' problem sentences say things with. */

import type { ValueCurrency } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { escapeMrkdwn, joinMrkdwn, type Mrkdwn, mrkdwn } from '../views/mrkdwn.ts';

/** A value as typed, said back in a problem: never more of it than a sentence can hold. */
export function typedValue(value: string): string {
  return cutText(value, 41, '…');
}

/**
 * Names in words, the last after "or": `planned, open, closed, awarded or cancelled`; each drawn
 * by `draw` (as text, or as code for forms to type).
 */
export function orList(names: readonly string[], draw: (name: string) => Mrkdwn = escapeMrkdwn): Mrkdwn {
  const drawn = names.map((name) => draw(name));
  const last = drawn.at(-1) ?? mrkdwn``;
  return drawn.length > 1 ? mrkdwn`${joinMrkdwn(drawn.slice(0, -1), mrkdwn`, `)} or ${last}` : last;
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
