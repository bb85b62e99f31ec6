/*
 * What typed text is said back for, beside parse-command.ts, which reads it: a quote left open,
 * operators the service does not have, and a currency sign and word that disagree. Each is a
 * sentence with what was typed in code, never a guess at what was meant.
 */
import type { ValueCurrency } from '../../../contract/schemas.ts';
import { code, type Mrkdwn, mrkdwn } from '../views/mrkdwn.ts';
import { CURRENCY_SIGNS, currencyOfWord } from './amounts.ts';
import { orList, spokenCurrencies, typedValue } from './problem-words.ts';

/** An odd number of double quotes: said, because guessing where the phrase ends changes the search. */
export function unclosedQuote(text: string): Mrkdwn | null {
  const quotes = text.split('"').length - 1;
  if (quotes % 2 === 0) return null;
  // Said from where it opens, so `value>1m "` is not answered with a region example.
  const open = text.slice(unpairedQuoteAt(text)).trim();
  return mrkdwn`A quote is not closed: ${code(typedValue(open))}. Close it (\`"school meals"\`) or take it out, then search again.`;
}

/**
 * Where the quote left without a partner starts to be said: each quote is paired by how it is
 * typed (one opening a phrase stands before a word, one closing it after a word), so in
 * `"cleaning "hospital"` the first is the one left open, not the last. A closing quote with none
 * open is said with the word it follows (`hospital"`).
 */
function unpairedQuoteAt(text: string): number {
  const open: number[] = [];
  let strayClose: number | null = null;
  for (let at = text.indexOf('"'); at >= 0; at = text.indexOf('"', at + 1)) {
    const before = text[at - 1];
    const after = text[at + 1];
    const closes =
      before !== undefined && /\S/.test(before) && (after === undefined || /[\s,.;!?]/.test(after));
    const opens =
      after !== undefined && /\S/.test(after) && (before === undefined || /[\s:<>=(]/.test(before));
    if (open.length > 0 && (closes || !opens)) open.pop();
    else if (closes) strayClose ??= at;
    else open.push(at);
  }
  const first = open[0];
  if (first !== undefined && (strayClose === null || first < strayClose)) return first;
  if (strayClose === null) return text.lastIndexOf('"');
  return text.slice(0, strayClose).search(/\S*$/);
}

/** The plain word typed right after a filter (`eur` in `value>1m eur x`), else ''. */
export function wordAfter(text: string, match: RegExpMatchArray): string {
  const rest = text.slice((match.index ?? 0) + match[0].length);
  return /^\s+([^\s"]+)/.exec(rest)?.[1] ?? '';
}

/**
 * A value's sign and the currency word after it naming two currencies (`value>€1m dollars`,
 * `value>$1m eur`): said, with the forms that keep one of them, each a form the search takes (no
 * suggestion the search would then refuse as two currencies). Null when they agree, or either is
 * missing; `value>CA$1m dollars` and `value>$1m usd` agree.
 */
export function currencyClash(
  filter: string,
  value: string,
  bySign: ValueCurrency | 'dollars' | undefined,
  word: string,
): Mrkdwn | null {
  const lower = word.toLowerCase();
  const byWord = /^dollars?$/.test(lower) ? 'dollars' : currencyOfWord(lower);
  if (!bySign || !byWord || bySign === byWord) return null;
  const dollars = (currency: ValueCurrency | 'dollars') =>
    currency === 'dollars' || currency === 'USD' || currency === 'CAD';
  if (dollars(bySign) && dollars(byWord) && (bySign === 'dollars' || byWord === 'dollars')) return null;
  const sign = CURRENCY_SIGNS.find(([prefix]) => value.toLowerCase().startsWith(prefix))?.[0] ?? '';
  const amount = typedValue(value.slice(sign.length));
  const keep = (currency: ValueCurrency | 'dollars') =>
    currency === 'dollars'
      ? [`${filter}${amount} usd`, `${filter}${amount} cad`]
      : [`${filter}${amount} ${currency.toLowerCase()}`];
  const forms = [
    ...(bySign === 'dollars' ? keep(bySign) : [`${filter}${typedValue(value)}`]),
    ...keep(byWord),
  ];
  const spoken = (currency: ValueCurrency | 'dollars') =>
    currency === 'dollars' ? mrkdwn`dollars` : spokenCurrencies([currency]);
  return mrkdwn`${code(`${filter}${typedValue(value)} ${typedValue(word)}`)}: the sign says ${spoken(bySign)} and the word after it ${spoken(byWord)}. Keep one: ${orList(forms, (form) => code(form))}.`;
}

/** `-word` and `OR` read as operators elsewhere; the service matches every word, so say so. */
export function unsupportedOperator(text: string): Mrkdwn | null {
  const unquoted = text.replace(/"[^"]*"/g, ' ');
  const excluded = /(?:^|\s)-(\p{L}[\p{L}\p{N}]*)/u.exec(unquoted);
  if (excluded)
    return mrkdwn`Searches cannot leave words out: ${code(`-${typedValue(excluded[1] ?? '')}`)} would be searched for. Search without it.`;
  const reversed = /(?:^|\s)(value|closes)\s*=\s*([<>])/i.exec(unquoted);
  if (reversed) {
    const [, key = '', sign = ''] = reversed;
    return mrkdwn`${code(`${typedValue(key)}=${sign}`)} is written ${code(`${key.toLowerCase()}${sign}=`)} or ${code(`${key.toLowerCase()}${sign}`)}, as in ${code(key.toLowerCase() === 'value' ? `value${sign}100k` : `closes${sign}14d`)}.`;
  }
  if (/(?:^|\s)OR(?:\s|$)/.test(unquoted))
    return mrkdwn`Searches find tenders with every word; \`OR\` is not understood. Run one search for each word instead.`;
  return null;
}
