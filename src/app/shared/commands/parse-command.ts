import { addDays } from 'date-fns/addDays';
import { formatISO } from 'date-fns/formatISO';
import {
  FRAMEWORK_STATUSES,
  TENDER_STATUSES,
  VALUE_CURRENCIES,
  type ValueCurrency,
} from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { IN_UTC } from '../../../shared/utc.ts';
import { code, escapeMrkdwn, type Mrkdwn, mrkdwn } from '../views/mrkdwn.ts';
import {
  amountProblem,
  currencyOfWord,
  MOST_DAYS_AHEAD,
  parseDays,
  readMoney,
  unconvertedCurrencyIn,
} from './amounts.ts';
import { TOKEN } from './command-tokens.ts';
import {
  DIRECTORY_FILTERS,
  filterWithoutValue,
  misreadFilter,
  SEARCH_FILTERS,
  unusableRegion,
} from './filter-names.ts';
import { orList, spokenCurrencies, typedValue } from './problem-words.ts';
import { asTheDataSpellsIt, type RegionRead, readUnquotedRegion } from './region-words.ts';
import { currencyClash, unclosedQuote, unsupportedOperator, wordAfter } from './typed-problems.ts';
import { joinSpacedComparisons, normaliseTyped } from './typed-text.ts';

/** Tender ids are OCDS ocids (`ocds-…`) or other codes with digits and dashes, never plain words. */
export function looksLikeTenderId(token: string): boolean {
  // A filter typed alone (`value>CA$2m`, `closes<-3d`, `region:north-east-2`) is a search, not an id.
  if (/[<>]/.test(token) || /^(?:value|closes|region|buyer|status|cpv|published)[:=]/i.test(token))
    return false;
  return /^ocds-/i.test(token) || (/\d/.test(token) && /[-_/$]/.test(token));
}

export interface TenderSearchFilters {
  q?: string;
  region?: string;
  status?: (typeof TENDER_STATUSES)[number];
  valueMin?: number;
  valueMax?: number;
  deadlineFrom?: string;
  deadlineTo?: string;
  cpv?: string;
  buyerId?: string;
  /** The currency of valueMin/valueMax (the service takes GBP when none is given). */
  currency?: ValueCurrency;
}

export type SearchParse =
  | {
      ok: true;
      filters: TenderSearchFilters;
      buyerName: string | null;
      /** The words were longer than a search takes: only the first SEARCH_WORDS_MAX characters are searched. */
      wordsCut?: true;
      /** The two words typed right after an unquoted region (`region:north west`), to suggest its quoted form. */
      afterRegion?: string;
      /**
       * An unquoted region read together with words after it as a region the data knows
       * (`region:south west` as "South West", given `regions`): what was typed, and the region.
       */
      regionRead?: RegionRead;
      /** `closes>`/`closes<` as typed, in days from now (the filters hold them as dates from today). */
      closesDays?: ClosesDays;
      /**
       * A word of the search that is a currency's code the service has no rates for (`jpy` in
       * `value>1m jpy`), with no currency named: searched as a word, the amounts read in pounds.
       */
      currencyWord?: { word: string; currency: string };
    }
  /**
   * What is wrong, as a sentence: what was typed shown as code, as it would be typed again; and,
   * for a misspelt region, the region the data names that it most likely meant.
   */
  | { ok: false; problem: Mrkdwn; regionMeant?: string };

/** `closes>14d` (after) and `closes<30d` (within), in days from a moment. */
export interface ClosesDays {
  after?: number;
  within?: number;
}

/**
 * The deadline filters of `closes>`/`closes<` counted from `now`: closing within `within` days
 * (from today, or from `after` days on), closing after `after` days.
 */
export function deadlineWindow(
  days: ClosesDays,
  now: Date,
): Pick<TenderSearchFilters, 'deadlineFrom' | 'deadlineTo'> {
  const day = (offset: number) =>
    formatISO(addDays(now, offset, IN_UTC), { representation: 'date', ...IN_UTC });
  return {
    ...(days.after !== undefined || days.within !== undefined ? { deadlineFrom: day(days.after ?? 0) } : {}),
    ...(days.within !== undefined ? { deadlineTo: day(days.within) } : {}),
  };
}

/** The filters parseSearch applies, as its switch names them. */
const APPLIED_FILTERS = new Set(['region:', 'status:', 'cpv:', 'buyer:', 'value<>', 'closes<>', 'currency:']);
/** The words a search takes, in characters (cut between two words past it). */
export const SEARCH_WORDS_MAX = 200;
/**
 * The service searches runs of letters and digits and drops the rest: words without any would
 * silently become no words at all, and the search would list everything.
 */
const SEARCHABLE = /[\p{L}\p{N}]/u;
const NOTHING_TO_SEARCH = mrkdwn`Those words have no letters or digits, so there is nothing in them to search for. Search with words, such as \`cleaning\`, or with filters alone (\`/tender help\` lists them).`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Words and filters a person types after `/tender search`. Problems come back as a sentence.
 * With the regions of the data, an unquoted region that is not one of them, but is with up to
 * three words after it (`region:south west`), is read as that region, and those words are not
 * searched for.
 */
export function parseSearch(
  text: string,
  now: Date,
  options: { regions?: readonly string[] } = {},
): SearchParse {
  const filters: TenderSearchFilters = {};
  const words: string[] = [];
  let buyerName: string | null = null;
  let afterRegion = '';
  let regionRead: RegionRead | undefined;
  /** Words after an unquoted region that were read as part of it, still to be passed over. */
  let regionWordsLeft = 0;
  /** `closes>`/`closes<` as days from now: a feed counts them from each post, not from today. */
  const closesDays: ClosesDays = {};
  // `value > 100k` is meant as `value>100k`, not as three words.
  const normalised = joinSpacedComparisons(normaliseTyped(text));
  const unsupported = unclosedQuote(normalised) ?? unsupportedOperator(normalised);
  if (unsupported) return { ok: false, problem: unsupported };
  /** Each filter is taken once (`value` and `closes` once each way): a second would silently win. */
  const given = new Set<string>();
  /** Currencies named (`value>€1m`, `value>1m eur`, `currency:eur`): one search compares in one. */
  const currencies = new Set<ValueCurrency>();
  let afterValue = false;
  /** The last value filter as typed (`value>1m`), for a sentence about the word after it. */
  let lastValue = '';
  /** The currency the last value filter's sign named (`value>CA$1m`), which a word after it may repeat. */
  let lastValueCurrency: ValueCurrency | undefined;
  for (const match of normalised.matchAll(TOKEN)) {
    const [, rawKey, operator, rawValue, quoted, phrase, word] = match;
    const followsValue = afterValue;
    afterValue = false;
    if (word !== undefined && regionWordsLeft > 0) {
      regionWordsLeft -= 1;
      continue;
    }
    if (phrase !== undefined || word !== undefined) {
      const bare = word === undefined ? null : filterWithoutValue(word, SEARCH_FILTERS);
      if (bare) return { ok: false, problem: bare };
      // `value>1m eur`: a currency's name right after an amount says what the amount is in (one
      // that disagrees with the amount's sign was refused with the amount).
      const named = word !== undefined && followsValue ? currencyOfWord(word) : undefined;
      // `value>CA$1m dollars`: the sign said which dollars.
      const dollarsOfSign = lastValueCurrency === 'USD' || lastValueCurrency === 'CAD';
      if (word !== undefined && followsValue && /^dollars?$/i.test(word) && !dollarsOfSign) {
        // `value>1m dollars`, or "over 1m dollars" read from a sentence: which dollars, as for `$`.
        const inDollars = (currency: string) => code(`${lastValue} ${currency}`);
        return {
          ok: false,
          problem: mrkdwn`${code(`${lastValue} ${typedValue(word)}`)}: say which dollars, as in ${inDollars('usd')} or ${inDollars('cad')}.`,
        };
      }
      if (named) currencies.add(named);
      else if (!(followsValue && dollarsOfSign && /^dollars?$/i.test(word ?? '')))
        words.push(phrase ?? word ?? '');
      continue;
    }
    const key = (rawKey ?? '').toLowerCase();
    const value = quoted ?? rawValue ?? '';
    const misread =
      misreadFilter(key, operator ?? ':', SEARCH_FILTERS) ?? unusableRegion(key, value, SEARCH_FILTERS);
    if (misread) return { ok: false, problem: misread };
    const kind = `${key}${operator === ':' ? ':' : '<>'}`;
    const filter = operator === ':' ? `${key}:` : `${key}${operator?.[0] ?? ''}`;
    // Only a filter that is applied counts (`cpv>5` is searched as a word, not a filter).
    if (APPLIED_FILTERS.has(kind)) {
      if (given.has(filter))
        return {
          ok: false,
          problem: mrkdwn`${code(filter)} is given twice; a search takes it once. Run one search for each.`,
        };
      given.add(filter);
    }
    switch (kind) {
      case 'region:': {
        filters.region = asTheDataSpellsIt(value, options.regions);
        if (quoted !== undefined) break;
        ({
          region: filters.region,
          afterRegion,
          wordsJoined: regionWordsLeft,
          read: regionRead,
        } = readUnquotedRegion(normalised, match, value, options.regions));
        break;
      }
      case 'status:': {
        const status = value.toLowerCase();
        if (!(TENDER_STATUSES as readonly string[]).includes(status)) {
          return {
            ok: false,
            problem: mrkdwn`${code(`status:${typedValue(value)}`)} is not a status; a tender is ${orList(TENDER_STATUSES)}, as in \`status:open\`.`,
          };
        }
        filters.status = status as TenderSearchFilters['status'];
        break;
      }
      case 'cpv:':
        if (!/^\d{1,8}$/.test(value))
          return {
            ok: false,
            problem: mrkdwn`${code(`cpv:${typedValue(value)}`)} is not a CPV code; give its first digits, such as \`cpv:72\` or \`cpv:90910000\`.`,
          };
        filters.cpv = value;
        break;
      case 'buyer:':
        if (UUID.test(value)) filters.buyerId = value;
        else buyerName = value;
        break;
      case 'value<>': {
        const money = readMoney(value);
        const typed = code(`value${operator}${typedValue(value)}`);
        if (money === null)
          return {
            ok: false,
            problem: value.startsWith('-')
              ? mrkdwn`${typed}: a value is never below zero; give an amount such as ${code('value>100k')}.`
              : mrkdwn`${typed} needs an amount, such as ${code('value>100k')} or ${code('value<2.5m')}.`,
          };
        const tooFine = amountProblem(money.amount);
        if (tooFine) return { ok: false, problem: mrkdwn`${typed} ${escapeMrkdwn(tooFine)}.` };
        const following = wordAfter(normalised, match);
        const clash = currencyClash(`value${operator}`, value, money.currency, following);
        if (clash) return { ok: false, problem: clash };
        // `value>$1m usd`: the word says which dollars.
        const currency =
          money.currency === 'dollars' ? (currencyOfWord(following) ?? 'dollars') : money.currency;
        if (currency === 'dollars') {
          const inDollars = (currency: string) =>
            code(`value${operator}${typedValue(value.replace('$', ''))} ${currency}`);
          return {
            ok: false,
            problem: mrkdwn`${typed}: say which dollars, as in ${inDollars('usd')} or ${inDollars('cad')}.`,
          };
        }
        if (currency) currencies.add(currency);
        if (operator?.startsWith('>')) filters.valueMin = money.amount;
        else filters.valueMax = money.amount;
        afterValue = true;
        lastValue = `value${operator}${typedValue(value)}`;
        lastValueCurrency = currency;
        break;
      }
      case 'currency:': {
        const named = currencyOfWord(value);
        if (!named)
          return {
            ok: false,
            problem: mrkdwn`${code(`currency:${typedValue(value)}`)} is not a currency amounts can be given in; use ${orList(VALUE_CURRENCIES.map((currency) => currency.toLowerCase()))}, as in \`currency:eur\`.`,
          };
        currencies.add(named);
        break;
      }
      case 'closes<>': {
        const days = parseDays(value);
        if (days === null)
          return {
            ok: false,
            problem: mrkdwn`${code(`closes${operator}${typedValue(value)}`)} needs a number of days or weeks, such as ${code('closes<14d')} or ${code('closes<2w')}.`,
          };
        if (days > MOST_DAYS_AHEAD)
          return {
            ok: false,
            problem: mrkdwn`${code(`closes${operator}${typedValue(value)}`)} reaches more than ten years ahead; give at most ${escapeMrkdwn(MOST_DAYS_AHEAD.toLocaleString('en-GB'))} days (${code(`closes${operator}3650d`)}) or 521 weeks.`,
          };
        if (operator?.startsWith('<')) closesDays.within = days;
        else closesDays.after = days;
        Object.assign(filters, deadlineWindow(closesDays, now));
        break;
      }
      default:
        // Not a filter (a code such as ISO:9001 is a word).
        words.push(match[0]);
    }
  }
  if (currencies.size > 1)
    return {
      ok: false,
      problem: mrkdwn`The amounts are in ${spokenCurrencies([...currencies])}; a search compares values in one currency. Give both amounts in one.`,
    };
  const [currency] = currencies;
  // A currency says what the amounts are in: without an amount there is nothing for it to change.
  if (currency && (filters.valueMin !== undefined || filters.valueMax !== undefined))
    filters.currency = currency;
  const read = readWords(words, given.size > 0);
  if ('problem' in read) return { ok: false, problem: read.problem };
  if (read.q) filters.q = read.q;
  if (filters.valueMin !== undefined && filters.valueMax !== undefined && filters.valueMin > filters.valueMax)
    return {
      ok: false,
      problem: mrkdwn`The ${code('value>')} amount is above the ${code('value<')} amount, so no tender could match. Swap them, or use one.`,
    };
  if (filters.deadlineFrom && filters.deadlineTo && filters.deadlineFrom > filters.deadlineTo)
    return {
      ok: false,
      problem: mrkdwn`${code('closes>')} is later than ${code('closes<')}, so no tender could match. Swap them, or use one.`,
    };
  // "Closing within 14 days" means tenders one can still bid for: cancelled, awarded and closed ones
  // are left out unless a status is asked for.
  if ((filters.deadlineFrom || filters.deadlineTo) && !filters.status) filters.status = 'open';
  // `value>1m jpy`, or "over 1m jpy" in a sentence: a currency without rates is searched as a word
  // and the amount read in pounds; the answer says so (a word such as SAR or ILS is a word too).
  const bounded = filters.valueMin !== undefined || filters.valueMax !== undefined;
  const currencyWord = bounded && !filters.currency ? unconvertedCurrencyIn(filters.q ?? '') : null;
  return {
    ok: true,
    filters,
    buyerName,
    ...(read.wordsCut ? { wordsCut: true as const } : {}),
    ...(afterRegion ? { afterRegion } : {}),
    ...(regionRead ? { regionRead } : {}),
    ...(closesDays.after !== undefined || closesDays.within !== undefined ? { closesDays } : {}),
    ...(currencyWord ? { currencyWord } : {}),
  };
}

export interface DirectoryFilters {
  q?: string;
  region?: string;
  status?: (typeof FRAMEWORK_STATUSES)[number];
  type?: 'framework' | 'dynamic_purchasing_system';
}

export type DirectoryParse =
  | {
      ok: true;
      filters: DirectoryFilters;
      wordsCut?: true;
      /** The two words typed right after an unquoted region, as in SearchParse. */
      afterRegion?: string;
      regionRead?: RegionRead;
    }
  | { ok: false; problem: Mrkdwn };

/** Words and `region:"…"` for buyers and suppliers; `status:live` and `type:dps` for frameworks. */
export function parseDirectory(text: string, options: { regions?: readonly string[] } = {}): DirectoryParse {
  const filters: DirectoryFilters = {};
  const words: string[] = [];
  let afterRegion = '';
  let regionRead: RegionRead | undefined;
  let regionWordsLeft = 0;
  const normalised = normaliseTyped(text);
  const unclosed = unclosedQuote(normalised);
  if (unclosed) return { ok: false, problem: unclosed };
  const given = new Set<string>();
  for (const match of normalised.matchAll(TOKEN)) {
    const [, rawKey, operator, rawValue, quoted, phrase, word] = match;
    if (word !== undefined && regionWordsLeft > 0) {
      regionWordsLeft -= 1;
      continue;
    }
    const bare = word === undefined ? null : filterWithoutValue(word, DIRECTORY_FILTERS);
    if (bare) return { ok: false, problem: bare };
    if (phrase !== undefined || word !== undefined || operator !== ':') {
      words.push(phrase ?? word ?? match[0]);
      continue;
    }
    const value = quoted ?? rawValue ?? '';
    const key = (rawKey ?? '').toLowerCase();
    const misread =
      misreadFilter(key, ':', DIRECTORY_FILTERS) ?? unusableRegion(key, value, DIRECTORY_FILTERS);
    if (misread) return { ok: false, problem: misread };
    if (DIRECTORY_FILTERS.some((known) => known.name === key)) {
      if (given.has(key))
        return {
          ok: false,
          problem: mrkdwn`${code(`${key}:`)} is given twice; a search takes it once. Run one search for each.`,
        };
      given.add(key);
    }
    if (key === 'region') {
      filters.region = asTheDataSpellsIt(value, options.regions);
      if (quoted === undefined)
        ({
          region: filters.region,
          afterRegion,
          wordsJoined: regionWordsLeft,
          read: regionRead,
        } = readUnquotedRegion(normalised, match, value, options.regions));
    } else if (key === 'status') {
      if (!(FRAMEWORK_STATUSES as readonly string[]).includes(value.toLowerCase())) {
        return {
          ok: false,
          problem: mrkdwn`${code(`status:${typedValue(value)}`)} is not a framework status; a framework is ${orList(FRAMEWORK_STATUSES)}, as in \`status:live\`.`,
        };
      }
      filters.status = value.toLowerCase() as DirectoryFilters['status'];
    } else if (key === 'type') {
      const type = value.toLowerCase();
      if (type === 'framework') filters.type = 'framework';
      else if (type === 'dps' || type === 'dynamic_purchasing_system')
        filters.type = 'dynamic_purchasing_system';
      else
        return {
          ok: false,
          problem: mrkdwn`${code(`type:${typedValue(value)}`)} is not a framework type; use \`type:framework\` or \`type:dps\`.`,
        };
    } else words.push(match[0]);
  }
  const read = readWords(words, given.size > 0);
  if ('problem' in read) return { ok: false, problem: read.problem };
  if (read.q) filters.q = read.q;
  return {
    ok: true,
    filters,
    ...(read.wordsCut ? { wordsCut: true as const } : {}),
    ...(afterRegion ? { afterRegion } : {}),
    ...(regionRead ? { regionRead } : {}),
  };
}

/**
 * The words of a search as the service will take them: cut to SEARCH_WORDS_MAX between two words
 * (and said so). Symbols beside filters are dropped harmlessly (`& region:Wales` is every tender in
 * Wales); alone they would silently list everything, so they are a problem.
 */
function readWords(
  words: readonly string[],
  anyFilter: boolean,
): { q?: string; wordsCut?: true } | { problem: Mrkdwn } {
  const q = words.join(' ').trim();
  if (!q) return {};
  if (!SEARCHABLE.test(q)) return anyFilter ? {} : { problem: NOTHING_TO_SEARCH };
  return {
    q: clipWords(q, SEARCH_WORDS_MAX),
    ...(q.length > SEARCH_WORDS_MAX ? { wordsCut: true as const } : {}),
  };
}

/** At most `max` characters of `words`, cut between two words rather than inside one. */
export function clipWords(words: string, max: number): string {
  if (words.length <= max) return words;
  const clipped = cutText(words, max);
  const lastSpace = clipped.lastIndexOf(' ');
  return words[clipped.length] === ' ' || lastSpace <= 0 ? clipped : clipped.slice(0, lastSpace);
}
