import { parseAmount } from './amounts.ts';
import { type DayOfNextYear, type DayOfOtherWeekday, readClosing } from './closing-words.ts';
import { nearestRegions, regionKey, regionNamedIn } from './region-words.ts';
import { dropInvisible } from './typed-text.ts';

/**
 * Whether readSentence would read `text` at all: not too long, and no filters or quotes in it (a
 * search as typed). Callers that must ask the service for the regions ask only then.
 */
export function readableAsSentence(text: string): boolean {
  // Quotes as typed: «school meals» stays a phrase, which parseSearch reads.
  return text.length <= LONGEST_SENTENCE && !/["“”]|\b[a-z]+(?::|[<>]=?)\S/i.test(text);
}

/**
 * A direct message written as a sentence ("school catering in Wales", "IT support over £100k
 * closing this month") read as the `/tender search` text it means: a known region, amounts and
 * time phrases become filters, the rest are words. Null when nothing in it reads as a filter (the
 * words are then searched as they are) or when it already holds filters or quotes (a search as
 * typed, which parseSearch reads itself).
 */
export function readSentence(sentence: string, now: Date, regions: readonly string[]): SentenceRead | null {
  const typed = asSentence(sentence);
  if (!typed || !readableAsSentence(typed)) return null;
  const filters: string[] = [];
  let rest = ` ${typed} `;

  const region = regionNamedIn(rest, regions);
  /** A second region named ("in Wales, London"): a search takes one, so it is offered as its own. */
  let another: { name: string } | null = null;
  if (region) {
    rest = region.rest;
    filters.push(`region:"${region.name}"`);
    const second = regionNamedIn(rest, regions);
    if (second) {
      another = second;
      // Its joining word goes with it: "in Wales or London" leaves no "or" to search for.
      rest = `${rest.slice(0, second.at).replace(/(?:\s*(?:,|&|\/|\band\b|\bor\b))+\s*$/i, ' ')} ${rest.slice(second.end)}`;
    }
  }
  const amounts = readAmounts(rest);
  rest = amounts.rest;
  filters.push(...amounts.filters);
  const closing = readClosing(rest, now);
  if (closing) {
    // "closing Friday at 5pm", "deadline Friday 12:00": a search is by day; the hour is no word of it.
    rest = closing.rest.replace(TIME_OF_DAY, ' ');
    filters.push(closing.filter);
  }
  if (filters.length === 0) return null;
  const words = tidyWords(rest);
  const search = [words, ...filters].filter(Boolean).join(' ');
  return {
    search,
    ...(region && another
      ? {
          otherRegion: {
            read: region.name,
            name: another.name,
            search: search.replace(`region:"${region.name}"`, `region:"${another.name}"`),
          },
        }
      : {}),
    ...(closing?.dayOfNextYear ? { dayOfNextYear: closing.dayOfNextYear } : {}),
    ...(closing?.dayOfOtherWeekday ? { dayOfOtherWeekday: closing.dayOfOtherWeekday } : {}),
    ...(closing && !closing.relative ? { closingDay: true as const } : {}),
  };
}

/** A region misspelt in a sentence, the one the data names nearest, and the search meant. */
export interface MisspeltRegion {
  typed: string;
  region: string;
  /** The `/tender search` text of the sentence with the region mended. */
  search: string;
}

/**
 * "cleaning in Londn", "roads across the north wst": one to four words after `in`, `across` or
 * `around` that are near exactly one region of the data (as `region:Londn` is near London), and
 * the search the sentence reads as with that region. Null when the sentence names a region it
 * knows, or nothing after those words is near one region: a guess is offered, never made.
 */
export function misspeltRegionRead(
  sentence: string,
  now: Date,
  regions: readonly string[],
): MisspeltRegion | null {
  const typed = asSentence(sentence);
  if (!typed || typed.length > LONGEST_SENTENCE || regionNamedIn(` ${typed} `, regions)) return null;
  // The space before a place is looked at, not taken: "in in Londn" has two places.
  const places = [...typed.matchAll(/(?<!\S)(?:in|across|around)\s+(?:the\s+)?/gi)];
  // The first few places a region may be named: a pasted page is not read word by word.
  for (const match of places.slice(0, PLACES_READ)) {
    const start = match.index + match[0].length;
    const after = typed.slice(start);
    const words = after.split(' ');
    for (let count = Math.min(REGION_WORDS_MOST, words.length); count >= 1; count--) {
      const candidate = words
        .slice(0, count)
        .join(' ')
        .replace(/[,.!?;:]+$/, '');
      // Letters only: a number or a filter after "in" is no region misspelt.
      if (!/^[\p{L}][\p{L}' -]*$/u.test(candidate)) continue;
      // Near one region by spelling, or the start of one region's name ("Yorkshire" for "Yorkshire
      // and The Humber"; "North" begins two, and is no guess).
      const near = nearestRegions(candidate, regions);
      const [region, ...others] = near.length > 0 ? near : regionsBeginning(candidate, regions);
      if (!region || others.length > 0) continue;
      const read = readSentence(
        `${typed.slice(0, start)}${region}${after.slice(candidate.length)}`,
        now,
        regions,
      );
      if (read) return { typed: candidate, region, search: read.search };
    }
  }
  return null;
}

/** The regions whose name begins with the words typed, whole words (`Yorkshire`: Yorkshire and The Humber). */
function regionsBeginning(typed: string, regions: readonly string[]): string[] {
  const key = regionKey(typed);
  if (key.length < 4) return [];
  return regions.filter((region) => regionKey(region).startsWith(`${key} `));
}

/**
 * The sentence as read: no invisible characters, no Slack markup of a mention (`<@U123>`,
 * `<!channel>`, `<#C123|bids>`: never words of a search), one space between words.
 */
function asSentence(sentence: string): string {
  return dropInvisible(sentence)
    .replace(/<[@#!][^<>\s]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** An hour as said beside a closing day: `at 5pm`, `12:00`, `5.30 pm`, `at noon` (`2.10` alone is a lot's number). */
const TIME_OF_DAY =
  /(?<=\s)(?:at\s+)?(?:\d{1,2}:\d{2}\s*(?:am|pm)?|\d{1,2}(?:\.\d{2})?\s*(?:am|pm)|noon|midday|midnight)(?=[\s,.!?;]|$)/gi;

/** How many `in …` of a sentence are read for a region misspelt. */
const PLACES_READ = 8;

/** The most words a region's name is read over ("Yorkshire and the Humber" is four). */
const REGION_WORDS_MOST = 4;

/**
 * The longest text read as a sentence: a search takes 200 characters of words, so a longer message
 * (a pasted page) is no search to read filters from, and reading its names costs time that grows
 * with the square of its length (40,000 characters took over a second).
 */
const LONGEST_SENTENCE = 1000;

/** A sentence read as a search. */
export interface SentenceRead {
  /** The `/tender search` text the sentence means. */
  search: string;
  /**
   * A closing day typed without a year whose date this year had passed ("by 12 May" on 13 May),
   * read as next year's: the words as typed and the day read (`2027-05-12`), for the answer to say.
   */
  dayOfNextYear?: DayOfNextYear;
  /** A closing date typed with a weekday it does not fall on: read as the date, for the answer to say. */
  dayOfOtherWeekday?: DayOfOtherWeekday;
  /**
   * A second region named ("in Wales, London"; a search takes one): the one searched (`read`, the
   * first named), the other, and the same search in the other, for the answer to offer.
   */
  otherRegion?: { read: string; name: string; search: string };
  /**
   * The closing window was read from a day of the calendar ("by Friday", "before Christmas"), as days
   * from today: right for a search now, wrong for a feed, which counts its window from each post.
   */
  closingDay?: true;
}

const SIGN = '(£|€|us\\$|ca\\$|c\\$|\\$)?';
/**
 * Digits with thousands commas and pence (`250,000.50`), or thousands grouped by spaces in threes
 * (`250 000`, as much of Europe writes them; not `10 100k`, which could be two amounts).
 */
const NUMBER = '(\\d{1,3}(?: \\d{3})+(?![\\da-z]|[.,]\\d)|\\d[\\d,]*(?:\\.\\d+)?)';
const UNIT = '(k|m|bn|b|thousand|million|billion)?';
const CURRENCY_NAME = '(gbp|eur|euros?|usd|cad|pounds?|sterling|(?:us|canadian)\\s+dollars?|dollars?)';
/** An amount as said: its sign, number, unit and the currency named after it (four groups). */
const MONEY = `${SIGN}${NUMBER}\\s*${UNIT}(?:\\s+${CURRENCY_NAME})?`;
const ENDS = '(?=[\\s,.!?;])';

/** `over £100k`, `under 2 million`, `above €500,000`: a value bound each, with its currency. */
/** "worth more than £100k", "valued at over £1m": the value's own word goes with its bound. */
const WORTH = '(?:(?:worth|valued(?:\\s+at)?)\\s+)?';
const AMOUNT = new RegExp(
  `\\s${WORTH}(over|above|more than|greater than|at least|from|under|below|less than|up to|at most)\\s+${MONEY}${ENDS}`,
  'gi',
);
/** `between £100k and £250k`, `from 1m to 2m`, `between 100k-250k`: both bounds at once. */
const RANGE = new RegExp(
  `\\s${WORTH}(?:between|from)\\s+${MONEY}(?:\\s+(?:and|to)\\s+|\\s*[-–—]\\s*)${MONEY}${ENDS}`,
  'gi',
);

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

/** An amount as the sentence says it. */
interface SaidAmount {
  sign: string;
  number: string;
  unit: string;
  named: string;
}

/** A value bound read from a sentence, as the filter will say it. */
interface Bound {
  operator: '>' | '<' | '>=' | '<=';
  /** The amount as the filter gives it: `1m`, `$2m` (dollars of no country), `€1m` beside a word that disagrees. */
  amount: string;
  /** `eur`, `gbp`, …; `dollars` or another code beside a sign that disagrees; '' for none. */
  code: string;
  named: boolean;
  /** The sign and the currency word name two currencies: both kept, for the search to say so. */
  clash: boolean;
}

/** The value bounds of a sentence (a range, else up to one each way), and the text without them. */
function readAmounts(text: string): { filters: string[]; rest: string } {
  const { bounds, rest } = readRange(text) ?? readBounds(text);
  // Pounds go unsaid (`over £1m` is `value>1m`), unless the other amount names another currency:
  // "over €2m under £3m" must be refused as two currencies, not read as both in euros.
  const another = bounds.some(({ code }) => code !== '' && code !== 'gbp');
  const filters = bounds.map(({ operator, amount, code, named, clash }) => {
    const said = clash || (code !== '' && (code !== 'gbp' || named || another));
    return `value${operator}${amount}${said ? ` ${code}` : ''}`;
  });
  return { filters, rest };
}

/** `over £100k`, `under 2 million`: at most one lower and one upper bound, as a search takes them. */
function readBounds(text: string): { bounds: Bound[]; rest: string } {
  const bounds: Bound[] = [];
  let rest = text;
  let from = 0;
  while (bounds.length < 2) {
    AMOUNT.lastIndex = from;
    const match = AMOUNT.exec(rest);
    if (!match) break;
    const [whole, comparison = '', sign = '', number = '', unit = '', named = ''] = match;
    const said = { sign, number, unit, named };
    const after = rest.slice(match.index + whole.length);
    if (!(sign || unit || named || looksLikeMoney(number)) || !clearlyAnAmount(said, after)) {
      // "over 100 schools", "from 2025", "at least 3 years": words, not a value bound.
      from = match.index + 1;
      continue;
    }
    const lower = /^(over|above|more than|greater than|at least|from)$/i.test(comparison);
    // One bound each way, as a search takes them: "over 1m over 2m" reads the first, the second stays words.
    if (bounds.some((bound) => bound.operator === (lower ? '>' : '<'))) {
      from = match.index + 1;
      continue;
    }
    rest = `${rest.slice(0, match.index)} ${after}`;
    from = match.index;
    bounds.push(boundOf(lower ? '>' : '<', said));
  }
  return { bounds, rest };
}

/**
 * `between 1m and 2m`: at least the one, at most the other (both included), the smaller first
 * whichever was said first. A unit said once, after the second, is both amounts' ("between 1 and 2
 * million") when the first is the smaller number; counts and years ("between 2 and 5 years") stay words.
 */
function readRange(text: string): { bounds: Bound[]; rest: string } | null {
  for (const match of text.matchAll(RANGE)) {
    const [whole, ...groups] = match;
    const [
      sign1 = '',
      number1 = '',
      unit1 = '',
      named1 = '',
      sign2 = '',
      number2 = '',
      unit2 = '',
      named2 = '',
    ] = groups;
    const second: SaidAmount = { sign: sign2, number: number2, unit: unit2, named: named2 };
    const unitShared = !unit1 && unit2 !== '' && numberValue(number1) < numberValue(number2);
    const first: SaidAmount = {
      sign: sign1,
      number: number1,
      unit: unitShared ? unit2 : unit1,
      named: named1,
    };
    const after = text.slice(match.index + whole.length);
    const marked = [sign1, unit1, named1, sign2, unit2, named2].some(Boolean);
    if (!(marked || (looksLikeMoney(number1) && looksLikeMoney(number2)))) continue;
    if (!clearlyAnAmount(first, after) || !clearlyAnAmount(second, after)) continue;
    const [low, high] =
      (parseAmount(plainAmount(first)) ?? 0) > (parseAmount(plainAmount(second)) ?? 0)
        ? [second, first]
        : [first, second];
    const lowBound = boundOf('>=', low);
    const highBound = boundOf('<=', high);
    // One currency for both is said once, after the second (`value>=1m value<=2m eur`).
    if (lowBound.code === highBound.code && !lowBound.clash && !highBound.clash) lowBound.code = '';
    return { bounds: [lowBound, highBound], rest: `${text.slice(0, match.index)} ${after}` };
  }
  return null;
}

/** A said amount as a bound: its currency from its sign and the word after it. */
function boundOf(operator: Bound['operator'], said: SaidAmount): Bound {
  const bySign = SIGN_CURRENCY[said.sign.toLowerCase()] ?? (said.sign ? '$' : '');
  // "dollars" says no more than `$` does.
  const byName = /^dollars?$/i.test(said.named)
    ? '$'
    : said.named
      ? currencyCode(said.named.toLowerCase())
      : '';
  const currency = agreedCurrency(bySign, byName);
  if (currency === null)
    return {
      operator,
      amount: `${said.sign}${plainAmount(said)}`,
      code: byName === '$' ? 'dollars' : byName,
      named: true,
      clash: true,
    };
  // `$` alone could be either dollar: left to the search to ask which.
  return {
    operator,
    amount: `${currency === '$' ? '$' : ''}${plainAmount(said)}`,
    code: currency === '$' ? '' : currency,
    named: byName !== '',
    clash: false,
  };
}

/** `250 000` and `250,000` as `250000`, with its unit (`1.5m`): as a filter takes an amount. */
function plainAmount(said: SaidAmount): string {
  return `${said.number.replace(/[, ](?=\d{3}(?!\d))/g, '')}${UNITS[said.unit.toLowerCase()] ?? ''}`;
}

/** `250 000`, `250,000` or `1.5` as the number it is, without its unit. */
function numberValue(number: string): number {
  return Number(number.replace(/[, ](?=\d{3}(?!\d))/g, ''));
}

/**
 * The currency a sign and a word after the amount name together ('' for none, `$` for dollars of
 * no country), or null when they name two: `CA$1m dollars` is cad, `$1m US dollars` usd, `€1m
 * dollars` two.
 */
function agreedCurrency(bySign: string, byName: string): string | null {
  if (!byName || bySign === byName) return bySign;
  if (!bySign) return byName;
  const dollar = (code: string) => code === '$' || code === 'usd' || code === 'cad';
  if (bySign === '$' && dollar(byName)) return byName;
  if (byName === '$' && dollar(bySign)) return bySign;
  return null;
}

/** Words that may follow an amount without being what it counts ("over 100 000 in Wales"). */
const AFTER_AN_AMOUNT =
  /^(?:in|across|around|for|and|or|but|with|closing|closes|close|due|deadline|ending|ends|before|by|within|under|below|over|above|less|more|up|at|from|to|please)$/i;

/**
 * Thousands grouped by spaces, with no sign, unit or currency, are an amount only when no word
 * they could be counting follows: "over 100 000 meals" is a count (and "100 000" could be two numbers).
 */
function clearlyAnAmount(said: SaidAmount, after: string): boolean {
  const next = /^\s*([^\s,.!?;]*)/.exec(after)?.[1] ?? '';
  // "up to 10k users", "over 5,000 pupils": what follows says what is counted, and it is no money.
  if (!said.sign && !said.named && COUNTED.test(next)) return false;
  if (!said.number.includes(' ') || said.sign || said.unit || said.named) return true;
  return next === '' || AFTER_AN_AMOUNT.test(next);
}

/** Words that say an amount without a currency counts things, not money. */
const COUNTED =
  /^(?:users?|pupils?|students?|learners?|children|people|persons?|staff|employees?|members?|patients?|residents?|households?|customers?|homes?|houses?|dwellings?|properties|beds?|sites?|schools?|buildings?|rooms?|places?|seats?|vehicles?|units?|devices?|laptops?|licen[cs]es?|meals?|items?|calls?|visits?|journeys?|trees?|lights?|streetlights?|pages?|copies|hours?|days?|weeks?|months?|years?|miles?|km|kilometres?|metres?|meters?|m2|sqm|acres?|hectares?|tonnes?|tons?)$/i;

/**
 * A number with no sign, unit or currency is read as money when it has thousands separators
 * (`500,000`, `500 000`) or is a thousand or more and no year (1900–2100): "over 100 schools" and
 * "from 2025" stay words.
 */
function looksLikeMoney(number: string): boolean {
  // Thousands separators, or pence (`999.99`).
  if (/[, ]\d{3}/.test(number) || /\.\d{2}$/.test(number)) return true;
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

/** What a request asks for without the words around it ("cleaning tenders?" is `cleaning`). */
export function tidiedWords(text: string): string {
  return tidyWords(asSentence(text));
}

/** What is left of the sentence as words: without the joining words its filters leave dangling. */
function tidyWords(text: string): string {
  const words = text
    // A comma between digits is a thousands separator ("5,000 pupils"), not a pause.
    .replace(/(?<!\d),+|,+(?!\d)|[;!?]+/g, ' ')
    .replace(/\.(?=\s|$)/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const filler = /^(in|for|and|with|of|the|a|an|any|tenders?|opportunities|please|closing|due)$/i;
  // How a question begins ("what's closing this week", "show me cleaning in Wales", "are there any…").
  const asking =
    /^(what'?s|what’s|what|which|is|are|there|show|me|find|get|list|all|i|i'?m|i’m|am|looking|need|want|some|can|could|you|do|have|got|we|we'?re|we’re|searching|us)$/i;
  // What is said around a request ("…, thanks!", "hi, …", "thank you"): never a word searched.
  const courtesy = /^(please|pls|plz|thanks|thank|you|thx|ty|ta|cheers|hi|hello|hey)$/i;
  const dropped = (word: string | undefined) => filler.test(word ?? '') || courtesy.test(word ?? '');
  while (words.length > 0 && (dropped(words[0]) || asking.test(words[0] ?? ''))) words.shift();
  while (words.length > 0 && dropped(words.at(-1))) words.pop();
  return words.join(' ');
}

/**
 * How a direct message asks for tenders ("are there any…", "I'm looking for…", "can you find me…",
 * "do you have any…"), begun so: what is asked for is searched, not the asking.
 */
const QUESTION_OPENING =
  /^(?:(?:hi|hello|hey)[\s,!.]+)?(?:(?:are|is)\s+there|(?:i['’]?m|i\s+am|we['’]?re|we\s+are)\s+(?:looking|searching)\s+for|(?:can|could|would)\s+you\s+(?:find|show|get|list)(?:\s+(?:me|us))?|(?:do|have)\s+you\s+(?:have|got)|(?:have|has)\s+anything\s+(?:come\s+up\s+)?(?:for|in|on))\s+(?:any\s+|some\s+)?/i;

/**
 * A question with no filter in it, as a direct message asks it ("are there any cleaning
 * tenders?", "I'm looking for school catering, thanks"): the words it asks for ('' when it asks for
 * nothing but tenders), or null when it does not begin as a question (words are then searched as
 * typed: "Due diligence services" stays so).
 */
export function questionWords(sentence: string): string | null {
  const typed = asSentence(sentence);
  if (!typed || typed.length > LONGEST_SENTENCE) return null;
  // The opening alone ("are there any?") asks for nothing: '' (the caller asks what to look for).
  const opening = QUESTION_OPENING.exec(`${typed} `);
  if (!opening) return null;
  return tidyWords(typed.slice(opening[0].length));
}
