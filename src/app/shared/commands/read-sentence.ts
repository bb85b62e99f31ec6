import { addDays } from 'date-fns/addDays';
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { endOfMonth } from 'date-fns/endOfMonth';
import { endOfWeek } from 'date-fns/endOfWeek';
import { isValid } from 'date-fns/isValid';
import { parse as parseDate } from 'date-fns/parse';
import { startOfDay } from 'date-fns/startOfDay';
import { dropInvisible } from './typed-text.ts';

/**
 * A direct message written as a sentence ("school catering in Wales", "IT support over £100k
 * closing this month") read as the `/tender search` text it means: a known region, amounts and
 * time phrases become filters, the rest are words. Null when nothing in it reads as a filter (the
 * words are then searched as they are) or when it already holds filters or quotes (a search as
 * typed, which parseSearch reads itself).
 */
export function readSentence(sentence: string, now: Date, regions: readonly string[]): string | null {
  // Quotes as typed: «school meals» stays a phrase, which parseSearch reads.
  const typed = dropInvisible(sentence).replace(/\s+/g, ' ').trim();
  if (!typed || /["“”]|\b[a-z]+(?::|[<>]=?)\S/i.test(typed)) return null;
  const filters: string[] = [];
  let rest = ` ${typed} `;

  const region = readRegion(rest, regions);
  if (region) {
    rest = region.rest;
    filters.push(`region:"${region.name}"`);
  }
  for (const amount of readAmounts(rest)) {
    rest = amount.rest;
    filters.push(amount.filter);
  }
  const closing = readClosing(rest, now);
  if (closing) {
    rest = closing.rest;
    filters.push(closing.filter);
  }
  if (filters.length === 0) return null;
  const words = tidyWords(rest);
  return [words, ...filters].filter(Boolean).join(' ');
}

/** The longest known region the sentence names (`in Wales`, `in the North West`), taken out of it. */
function readRegion(text: string, regions: readonly string[]): { name: string; rest: string } | null {
  const longestFirst = [...regions]
    .filter((name) => name.trim() && !name.includes('"'))
    .sort((a, b) => b.length - a.length);
  for (const name of longestFirst) {
    const spelled = escapeRegExp(name.trim()).replace(/\s+/g, '[\\s-]+');
    const named = new RegExp(`(\\s(?:in|across|around|for)(?:\\s+the)?)?\\s${spelled}(?=[\\s,.!?;])`, 'gi');
    for (const found of text.matchAll(named)) {
      if (partOfAName(text.slice(0, found.index), found[1] ?? '')) continue;
      const at = found.index;
      return { name: name.trim(), rest: `${text.slice(0, at)} ${text.slice(at + found[0].length)}` };
    }
  }
  return null;
}

/**
 * "Transport for London", "University of Wales", "Bank of England": after a capitalised word and
 * `for` or `of`, a region is part of a name ("cleaning for Wales" is the region). `before` is the
 * text before the match, `preposition` what the match began with.
 */
function partOfAName(before: string, preposition: string): boolean {
  if (/^\s*for\b/i.test(preposition)) return /\s\p{Lu}\p{L}*$/u.test(before);
  return preposition === '' && /\s\p{Lu}\p{L}*\s+(?:of|for)(?:\s+the)?$/u.test(before);
}

/** `over £100k`, `under 2 million`, `above €500,000`: a value bound each, with its currency. */
const AMOUNT =
  /\s(over|above|more than|greater than|at least|from|under|below|less than|up to|at most)\s+(£|€|us\$|ca\$|c\$|\$)?(\d[\d,]*(?:\.\d+)?)\s*(k|m|bn|b|thousand|million|billion)?(?:\s+(gbp|eur|euros?|usd|cad|pounds?|sterling|(?:us|canadian)\s+dollars?|dollars?))?(?=[\s,.!?;])/gi;

const UNITS: Record<string, string> = {
  k: 'k',
  thousand: 'k',
  m: 'm',
  million: 'm',
  b: 'b',
  bn: 'b',
  billion: 'b',
};
const SIGN_CURRENCY: Record<string, string> = { '€': 'eur', us$: 'usd', ca$: 'cad', c$: 'cad', '£': 'gbp' };

function readAmounts(text: string): { filter: string; rest: string }[] {
  const found: { lower: boolean; amount: string; code: string; named: boolean; rest: string }[] = [];
  let rest = text;
  let from = 0;
  // At most one lower and one upper bound, as a search takes them.
  while (found.length < 2) {
    AMOUNT.lastIndex = from;
    const match = AMOUNT.exec(rest);
    if (!match) break;
    const [whole, comparison = '', sign = '', number = '', unit = '', named = ''] = match;
    if (!sign && !unit && !named && !looksLikeMoney(number)) {
      // "over 100 schools", "from 2025", "at least 3 years": words, not a value bound.
      from = match.index + 1;
      continue;
    }
    const lower = /^(over|above|more than|greater than|at least|from)$/i.test(comparison);
    // "dollars" says no more than `$` does.
    const currency = /^dollars?$/i.test(named)
      ? '$'
      : named
        ? named.toLowerCase()
        : (SIGN_CURRENCY[sign.toLowerCase()] ?? (sign ? '$' : ''));
    // `$` alone could be either dollar: left to the search to ask which.
    const amount = `${currency === '$' ? '$' : ''}${number.replace(/,(?=\d{3}(?!\d))/g, '')}${UNITS[unit.toLowerCase()] ?? ''}`;
    rest = `${rest.slice(0, match.index)} ${rest.slice(match.index + whole.length)}`;
    from = match.index;
    found.push({
      lower,
      amount,
      code: currency === '$' ? '' : currencyCode(currency),
      named: named !== '',
      rest,
    });
  }
  // Pounds go unsaid (`over £1m` is `value>1m`), unless the other amount names another currency:
  // "over €2m under £3m" must be refused as two currencies, not read as both in euros.
  const another = found.some(({ code }) => code !== '' && code !== 'gbp');
  return found.map(({ lower, amount, code, named, rest: after }) => {
    const said = code !== '' && (code !== 'gbp' || named || another);
    return { filter: `value${lower ? '>' : '<'}${amount}${said ? ` ${code}` : ''}`, rest: after };
  });
}

/**
 * A number with no sign, unit or currency is read as money when it has thousands separators
 * (`500,000`) or is a thousand or more and no year (1900–2100): "over 100 schools" and "from 2025"
 * stay words.
 */
function looksLikeMoney(number: string): boolean {
  // Thousands separators, or pence (`999.99`).
  if (/,\d{3}/.test(number) || /\.\d{2}$/.test(number)) return true;
  const value = Number(number);
  if (!Number.isFinite(value) || value < 1000) return false;
  return !(Number.isInteger(value) && value >= 1900 && value <= 2100);
}

function currencyCode(word: string): string {
  if (/^euros?$/.test(word)) return 'eur';
  if (/^(pounds?|sterling)$/.test(word)) return 'gbp';
  if (/^us\s+dollars?$/.test(word)) return 'usd';
  if (/^canadian\s+dollars?$/.test(word)) return 'cad';
  return word;
}

const CLOSING = '(?:(?:closing|closes|close|due|deadline|ending|ends)\\s+)';
const DAY_FORMATS = [
  'd MMMM yyyy',
  'd MMM yyyy',
  'd MMMM',
  'd MMM',
  'MMMM d yyyy',
  'MMMM d',
  'MMM d',
  'yyyy-MM-dd',
  'd/M/yyyy',
];

/** `closing this week`, `closing this month`, `closing in 10 days`, `within 2 weeks`, `before 1 March`. */
function readClosing(text: string, now: Date): { filter: string; rest: string } | null {
  const today = startOfDay(now);
  const thisPeriod = new RegExp(
    `\\s${CLOSING}(?:this|by the end of (?:the|this))\\s+(week|month)(?=[\\s,.!?;])`,
    'i',
  );
  const period = thisPeriod.exec(text);
  if (period) {
    const end =
      (period[1] ?? '').toLowerCase() === 'week' ? endOfWeek(today, { weekStartsOn: 1 }) : endOfMonth(today);
    return { filter: `closes<${differenceInCalendarDays(end, today)}d`, rest: text.replace(period[0], ' ') };
  }
  const inDays = new RegExp(
    `\\s(?:${CLOSING}(?:in|within)(?:\\s+the\\s+next)?|within(?:\\s+the\\s+next)?)\\s+(\\d{1,3})\\s+(days?|weeks?)(?=[\\s,.!?;])`,
    'i',
  );
  const days = inDays.exec(text);
  if (days) {
    const unit = /^w/i.test(days[2] ?? '') ? 'w' : 'd';
    return { filter: `closes<${days[1]}${unit}`, rest: text.replace(days[0], ' ') };
  }
  const beforeDay = new RegExp(
    `\\s${CLOSING}?(before|by)\\s+((?:the\\s+)?[\\w/,-]+(?:\\s+[\\w,]+){0,2})`,
    'i',
  );
  const found = beforeDay.exec(text);
  if (found) {
    const [, word = '', phrase = ''] = found;
    // The longest run of words that reads as a day: `1 March 2027`, `1 March`, `2027-03-01`.
    const tokens = phrase
      .replace(/^the\s+/i, '')
      .replace(/,/g, ' ')
      .split(/\s+/)
      .filter(Boolean);
    for (let count = Math.min(3, tokens.length); count >= 1; count--) {
      const candidate = tokens
        .slice(0, count)
        .join(' ')
        .replace(/(\d)(st|nd|rd|th)\b/i, '$1');
      const day = readDay(candidate, today);
      if (!day) continue;
      const until = differenceInCalendarDays(day, today) - (word.toLowerCase() === 'before' ? 1 : 0);
      if (until < 0 || until > 9999) return null;
      const spoken = new RegExp(
        `\\s${CLOSING}?${escapeRegExp(word)}\\s+(?:the\\s+)?${tokens
          .slice(0, count)
          .map((token) => escapeRegExp(token))
          .join('[\\s,]+')}(?:st|nd|rd|th)?`,
        'i',
      );
      return { filter: `closes<${until}d`, rest: text.replace(spoken, ' ') };
    }
  }
  return null;
}

/** A day as people write one; without a year, the next such day from today. */
function readDay(text: string, today: Date): Date | null {
  for (const format of DAY_FORMATS) {
    const day = parseDate(text, format, today);
    if (!isValid(day)) continue;
    const hasYear = format.includes('yyyy');
    return !hasYear && day < today ? parseDate(text, format, addDays(today, 366)) : day;
  }
  return null;
}

/** What is left of the sentence as words: without the joining words its filters leave dangling. */
function tidyWords(text: string): string {
  const words = text
    .replace(/[,;!?]+/g, ' ')
    .replace(/\.(?=\s|$)/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const filler = /^(in|for|and|with|of|the|a|an|any|tenders?|opportunities|please|closing|due)$/i;
  while (words.length > 0 && filler.test(words[0] ?? '')) words.shift();
  while (words.length > 0 && filler.test(words.at(-1) ?? '')) words.pop();
  return words.join(' ');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
