/*
 * Time phrases of a sentence read as closing-date filters (readSentence's dates): `closing this
 * month`, `within 2 weeks`, `before 1 March`, counted in UTC days as the filters are.
 */
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { endOfMonth } from 'date-fns/endOfMonth';
import { endOfWeek } from 'date-fns/endOfWeek';
import { formatISO } from 'date-fns/formatISO';
import { isValid } from 'date-fns/isValid';
import { parse as parseDate } from 'date-fns/parse';
import { startOfDay } from 'date-fns/startOfDay';
import { startOfMonth } from 'date-fns/startOfMonth';
import { IN_UTC } from '../../../shared/utc.ts';
import { MOST_DAYS_AHEAD } from './amounts.ts';

/** A day typed without a year read as next year's: as typed, and the day (for the answer to say so). */
export interface DayOfNextYear {
  typed: string;
  day: string;
}

/**
 * A closing day typed with a weekday it does not fall on ("closing Thursday 12 May 2027", a
 * Wednesday): the date is read, and the answer says which weekday it is, so the slip is seen.
 */
export interface DayOfOtherWeekday {
  typed: string;
  /** `2027-05-12`. */
  day: string;
  /** The weekday the date falls on: `Wednesday`. */
  weekday: string;
}

/** `closing`, `closing date:`, `deadline:`, `due`…, with the spaces after it. */
const CLOSING = '(?:(?:closing(?:\\s+date)?|closes|close|due|deadline|ending|ends):?\\s+)';
/** A closing word said, anywhere in a phrase. */
const CLOSING_WORD = new RegExp(`\\s${CLOSING}`, 'i');
const DAY_FORMATS = [
  'd MMMM yyyy',
  'd MMM yyyy',
  'd MMMM',
  'd MMM',
  'MMMM d yyyy',
  'MMMM d',
  'MMM d',
  'yyyy-MM-dd',
  'yyyy/MM/dd',
  'd/M/yyyy',
  'd.M.yyyy',
  'd-M-yyyy',
  'd/M/yy',
  'd.M.yy',
  'd/M',
];

/**
 * `closing this week`, `closing this month`, `closing next week`, `closing next month`, `closing in
 * 10 days`, `within 2 weeks`, `before 1 March`, `by Friday`, `by the end of December`, `closing
 * today`, `closing tomorrow`, `closing on 12 May`, `closing 12/05/2027`, `closing next Friday`.
 */
export function readClosing(
  text: string,
  now: Date,
): {
  filter: string;
  rest: string;
  dayOfNextYear?: DayOfNextYear;
  dayOfOtherWeekday?: DayOfOtherWeekday;
  /** Counted from whenever it is searched ("within 2 weeks"), not a day of the calendar ("by Friday"). */
  relative?: true;
} | null {
  const today = startOfDay(now, IN_UTC);
  const thisPeriod = new RegExp(
    `\\s${CLOSING}(?:this|by the end of (?:the|this))\\s+(week|month)(?=[\\s,.!?;])`,
    'i',
  );
  const period = thisPeriod.exec(text);
  if (period) {
    const endOf = (day: Date) =>
      (period[1] ?? '').toLowerCase() === 'week'
        ? endOfWeek(day, { weekStartsOn: 1, ...IN_UTC })
        : endOfMonth(day, IN_UTC);
    // Said on its last day (a Sunday, the 30th of November) "this week" means the days ahead: up to
    // the end of the next one, today included, not today alone.
    const endsToday = differenceInCalendarDays(endOf(today), today, IN_UTC) === 0;
    const end = endsToday ? endOf(addDays(today, 1, IN_UTC)) : endOf(today);
    return {
      filter: `closes<${differenceInCalendarDays(end, today, IN_UTC)}d`,
      rest: text.replace(period[0], ' '),
    };
  }
  // `closing next week` (Monday to Sunday) and `closing next month`: a window, after and within.
  const nextPeriod = new RegExp(`\\s${CLOSING}next\\s+(week|month)(?=[\\s,.!?;])`, 'i').exec(text);
  if (nextPeriod) {
    const week = (nextPeriod[1] ?? '').toLowerCase() === 'week';
    const start = addDays(
      week ? endOfWeek(today, { weekStartsOn: 1, ...IN_UTC }) : endOfMonth(today, IN_UTC),
      1,
      IN_UTC,
    );
    const end = week ? endOfWeek(start, { weekStartsOn: 1, ...IN_UTC }) : endOfMonth(start, IN_UTC);
    return {
      filter: `closes>${differenceInCalendarDays(start, today, IN_UTC)}d closes<${differenceInCalendarDays(end, today, IN_UTC)}d`,
      rest: text.replace(nextPeriod[0], ' '),
    };
  }
  const inDays = new RegExp(
    `\\s(?:${CLOSING}(?:in|within)(?:\\s+the\\s+next)?|within(?:\\s+the\\s+next)?)\\s+(\\d{1,3}|an?|${NUMBER_WORDS.join('|')})\\s+(days?|weeks?|months?)(?=[\\s,.!?;])`,
    'i',
  );
  const days = inDays.exec(text);
  if (days) {
    const unitWord = (days[2] ?? '').toLowerCase();
    const typed = (days[1] ?? '').toLowerCase();
    const count = /^\d+$/.test(typed)
      ? Number(typed)
      : /^an?$/.test(typed)
        ? 1
        : NUMBER_WORDS.indexOf(typed) + 1;
    // Months are as long as the calendar makes them from today (`closes<` counts days and weeks).
    // Only after a closing word: "implementation within 6 months" is a contract's length.
    const months = unitWord.startsWith('m');
    const [amount, unit] = months
      ? [differenceInCalendarDays(addMonths(today, count, IN_UTC), today, IN_UTC), 'd']
      : [count, unitWord.startsWith('w') ? 'w' : 'd'];
    // "within 600 weeks" reaches past what `closes<` takes: words, as a day that far is.
    if (amount * (unit === 'w' ? 7 : 1) <= MOST_DAYS_AHEAD && (!months || CLOSING_WORD.test(days[0])))
      return { filter: `closes<${amount}${unit}`, rest: text.replace(days[0], ' '), relative: true };
  }
  // `before 1 March`, `closing by Friday`, `due on or before 3 December`: up to the day (before it, or on it).
  const byLead = `${CLOSING}?(before|by|on\\s+or\\s+before)\\s+`;
  const byDay = readDayAfter(text, byLead, today);
  if (byDay) {
    // "before Thursday" said on a Thursday means next week's.
    const ahead =
      byDay.weekday && byDay.daysAhead === 0 && /^before$/i.test(byDay.word) ? 7 : byDay.daysAhead;
    const until = ahead - (byDay.word.toLowerCase() === 'before' ? 1 : 0);
    if (until >= 0) return { ...byDay.read, filter: `closes<${until}d` };
    // "before 1 March" said on 1 March: next year's, as "before Thursday" on a Thursday is next
    // week's (read from tomorrow). Only a day that comes round again a year on: "before today" and
    // a date typed with this year still read nothing.
    const later = readDayAfter(text, byLead, addDays(today, 1, IN_UTC));
    return later?.read.dayOfNextYear ? { ...later.read, filter: `closes<${later.daysAhead}d` } : null;
  }
  // `closing after 1 January`: from the day after it.
  const afterDay = readDayAfter(text, `${CLOSING}?(after)\\s+`, today);
  if (afterDay) return { ...afterDay.read, filter: `closes>${afterDay.daysAhead + 1}d` };
  // `closing today`, `closing tomorrow`, `closing on 12 May`, `closing 12/05/2027`, `closing Friday`,
  // `closing date: 3 December`: that one day.
  const onDay = readDayAfter(text, `${CLOSING}(?:(on)\\s+)?`, today);
  if (onDay) return { ...onDay.read, filter: oneDay(onDay.daysAhead) };
  return null;
}

/**
 * A closing day written in numbers that cannot be searched ("closing 31/02/2027", "by 0/0/0",
 * "closing 1/1/2020", "closing 12/05/2040"), as typed after its lead word, and why: no day the
 * calendar has, passed, or more than ten years ahead; null when there is none. Said when such a
 * sentence found nothing: it was searched as words.
 */
export function unreadableDay(
  text: string,
  now: Date,
): { typed: string; why: 'no day' | 'passed' | 'too far' } | null {
  // A weekday may come first ("closing Thursday 31.02.2027").
  const lead = `(?:${CLOSING}(?:on\\s+)?|${CLOSING}?(?:before|by|on\\s+or\\s+before)\\s+)(${WEEKDAY_WORD},?\\s+)?`;
  const today = startOfDay(now, IN_UTC);
  const places = new RegExp(`\\s${lead}(\\d[\\d/.-]*\\d)(?=[\\s,!?;]|\\.(?:\\s|$))`, 'gi');
  let tried = 0;
  for (const found of ` ${text} `.matchAll(places)) {
    if (++tried > LEAD_PLACES_READ) break;
    const typed = found[2] ?? '';
    // After a weekday, only a whole date: "Friday 5.30 pm" is a time.
    if (!/[/.-]/.test(typed) || (found[1] && !NUMERIC_DATE.test(typed))) continue;
    const read = readDay(typed, today);
    if (!read) return { typed, why: 'no day' };
    const ahead = differenceInCalendarDays(read.day, today, IN_UTC);
    if (ahead < 0) return { typed, why: 'passed' };
    if (ahead > MOST_DAYS_AHEAD) return { typed, why: 'too far' };
  }
  return null;
}

/**
 * How many places a lead word ("by", "closing", "before") is said are read for a day: a sentence
 * names its day once or twice, and "by 1 by 1 …" repeated over a long message had each place parse
 * its words as a date (a tenth of a second of the event loop for one message).
 */
const LEAD_PLACES_READ = 8;

/** The filter of one day `ahead` days from today: `closes<0d` for today, else from it and within it. */
function oneDay(ahead: number): string {
  return ahead === 0 ? 'closes<0d' : `closes>${ahead}d closes<${ahead}d`;
}

/**
 * A day named after `lead` (a pattern ending in its spaces, whose group, if any, is the word said:
 * `by`, `on`): how many days ahead it is, the lead word, and the text without the phrase (with a
 * day typed without a year read as next year's, said). Every place the lead is said is tried in
 * turn ("run by the council by Friday"). Null when no day reads after any, or one in the past or
 * more than ten years ahead (as `closes<` takes them).
 */
function readDayAfter(
  text: string,
  lead: string,
  today: Date,
): {
  daysAhead: number;
  word: string;
  weekday: boolean;
  read: { rest: string; dayOfNextYear?: DayOfNextYear; dayOfOtherWeekday?: DayOfOtherWeekday };
} | null {
  // The words after the lead are looked at, not taken: a place that reads no day leaves them for the next.
  // A date in numbers may follow a weekday ("by Thursday 12.5.2027"): its separators are read too.
  const places = new RegExp(
    `\\s${lead}(?=((?:the\\s+)?[\\w/.,'’-]+(?:\\s+(?:\\d[\\d/.-]*\\d|[\\w,'’]+)){0,3}))`,
    'gi',
  );
  let tried = 0;
  for (const found of text.matchAll(places)) {
    if (++tried > LEAD_PLACES_READ) break;
    const word = found[1] ?? '';
    const tokens = (found[2] ?? '')
      .replace(/^the\s+/i, '')
      .replace(/,/g, ' ')
      .replace(/\.$/, '')
      .split(/\s+/)
      .filter(Boolean);
    const day = dayOfTokens(tokens, today);
    if (!day) continue;
    const daysAhead = differenceInCalendarDays(day.day, today, IN_UTC);
    if (daysAhead < 0 || daysAhead > MOST_DAYS_AHEAD) return null;
    const spoken = new RegExp(
      `\\s${lead}(?:the\\s+)?${tokens
        .slice(0, day.tokens)
        .map((token) => escapeRegExp(token))
        .join('[\\s,]+')}(?:st|nd|rd|th)?`,
      'i',
    );
    const typed = spoken.exec(text.slice(found.index))?.[0].trim() ?? '';
    const iso = formatISO(day.day, { representation: 'date', ...IN_UTC });
    return {
      daysAhead,
      word,
      weekday: day.weekday === true,
      read: {
        rest: `${text.slice(0, found.index)}${text.slice(found.index).replace(spoken, ' ')}`,
        ...(day.nextYear ? { dayOfNextYear: { typed, day: iso } } : {}),
        ...(day.otherWeekday ? { dayOfOtherWeekday: { typed, day: iso, weekday: day.otherWeekday } } : {}),
      },
    };
  }
  return null;
}

/**
 * The longest run of the first tokens that reads as a day (`1 March 2027`, `1 March`, `2027-03-01`,
 * `Friday`), and how many tokens it took: a weekday before a date ("Fri 4 Dec", "Friday, 4
 * December") is the date's (`otherWeekday` names the one the date falls on when the typed one is
 * not it); `this` before a weekday is the weekday's.
 */
function dayOfTokens(
  tokens: string[],
  today: Date,
): { day: Date; nextYear: boolean; weekday?: true; otherWeekday?: string; tokens: number } | null {
  const leading =
    tokens.length > 1 && (isWeekday(tokens[0] ?? '') || /^this$/i.test(tokens[0] ?? '')) ? [1, 0] : [0];
  for (const skipped of leading) {
    for (let count = Math.min(3, tokens.length - skipped); count >= 1; count--) {
      const candidate = tokens
        .slice(skipped, skipped + count)
        .join(' ')
        .replace(/(\d)(st|nd|rd|th)\b/i, '$1');
      const read = readDay(candidate, today);
      if (!read) continue;
      // Only a calendar date (with its day's number) is checked: "closing Friday next Monday" or
      // "… Thursday christmas" name two days, not a date with its weekday.
      const typedWeekday = skipped === 1 && /\d/.test(candidate) ? weekdayOf(tokens[0] ?? '') : -1;
      const falls = read.day.getUTCDay();
      return typedWeekday === -1 || typedWeekday === falls
        ? { ...read, tokens: skipped + count }
        : { ...read, otherWeekday: WEEKDAY_NAMES[falls] as string, tokens: skipped + count };
    }
    // "Thursday 31.02.2027": a date in numbers after the weekday that is no day leaves the weekday
    // unread too (unreadableDay then says why), rather than search this Thursday for "31.02.2027".
    if (skipped === 1 && NUMERIC_DATE.test(tokens[1] ?? '')) return null;
  }
  return null;
}

/**
 * A day as people write one. Without a year, the next such day from today: a closing date looks
 * forward, so "by 12 May" typed on 13 May is next year's (`nextYear`, for the answer to say so),
 * and 29 February the next leap year's.
 */
function readDay(text: string, today: Date): { day: Date; nextYear: boolean; weekday?: true } | null {
  // "New Year’s Day" as "New Year's Day"; "Monday's meeting" is by Monday.
  const typed = text
    .toLowerCase()
    .replace(/’/g, "'")
    .replace(/^([a-z]+)'s$/, (said, word: string) => (isWeekday(word) ? word : said));
  if (typed === 'today' || typed === 'tonight') return { day: today, nextYear: false };
  if (typed === 'tomorrow') return { day: addDays(today, 1, IN_UTC), nextYear: false };
  // The days a closing date is most often said by: Christmas (25 December), the new year (1 January).
  const named = NAMED_DAYS[typed.replace(/^the\s+/, '')];
  if (named) return readDay(named, today);
  // `Friday`, `fri`: the next one, or today on a Friday.
  const weekday = weekdayOf(typed);
  if (weekday !== -1) {
    return {
      day: addDays(today, (weekday - today.getUTCDay() + 7) % 7, IN_UTC),
      nextYear: false,
      weekday: true,
    };
  }
  // `next Friday`: the Friday of next week (Monday to Sunday), as "this Friday" is this week's.
  const next = /^next\s+(\S+)$/.exec(typed)?.[1];
  const nextWeekday = next ? weekdayOf(next) : -1;
  if (nextWeekday !== -1) {
    const nextMonday = addDays(endOfWeek(today, { weekStartsOn: 1, ...IN_UTC }), 1, IN_UTC);
    return { day: addDays(nextMonday, (nextWeekday + 6) % 7, IN_UTC), nextYear: false };
  }
  // `end of December`: its last day, the next December's.
  const month = /^end\s+of\s+(\S+)$/.exec(typed)?.[1];
  if (month) {
    const first = readDay(`1 ${month}`, startOfMonth(today, IN_UTC));
    return first ? { day: endOfMonth(first.day, IN_UTC), nextYear: first.nextYear } : null;
  }
  // Every format below has a month's name or a separator: "1 by 1" asks none of them.
  if (!/[/.-]/.test(typed) && !MONTH_NAMED.test(typed)) return null;
  for (const format of DAY_FORMATS) {
    if (format.includes('yyyy')) {
      const day = parseDate(text, format, today, IN_UTC);
      // `12/05/27` is no year 27: the two-digit formats read it.
      if (isValid(day) && day.getUTCFullYear() >= 1000) return { day, nextYear: false };
      continue;
    }
    // This year's day if still to come, else the next year that has it (a leap year for 29 February).
    for (let ahead = 0; ahead <= 8; ahead++) {
      const reference = ahead === 0 ? today : new Date(Date.UTC(today.getUTCFullYear() + ahead, 0, 1));
      const day = parseDate(text, format, reference, IN_UTC);
      if (isValid(day) && day >= today)
        return { day, nextYear: ahead === 1 && isValid(parseDate(text, format, today, IN_UTC)) };
    }
  }
  return null;
}

/** A date in numbers with its day, month and year (`31.02.2027`, `0/0/0`), read or not: not a time (`5.30`). */
const NUMERIC_DATE = /^\d+[/.-]\d+[/.-]\d+$/;
/** A word that starts as a weekday's name does (`Thursday`, `thurs`, `Fri`), for a pattern. */
const WEEKDAY_WORD = '(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*';

/** A month's name or its short form, as the formats read them. */
const MONTH_NAMED = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;

/** `Friday`, `fri`, `tues`: a weekday's name or the start of one (three letters at least). */
function isWeekday(text: string): boolean {
  return weekdayOf(text) !== -1;
}

/** The weekday (0 for Sunday) a name or its start names (`thurs`, `Thursday's`), else -1. */
function weekdayOf(text: string): number {
  const said = text.toLowerCase().replace(/['’]s$/, '');
  // "Weds" is Wednesday as people write it, though not the start of its name.
  const typed = said === 'weds' ? 'wed' : said;
  return typed.length >= 3 ? WEEKDAYS.findIndex((name) => name.startsWith(typed)) : -1;
}

/** Days said by name, as the dates they are. */
const NAMED_DAYS: Record<string, string> = {
  christmas: '25 December',
  'christmas day': '25 December',
  'christmas eve': '24 December',
  xmas: '25 December',
  'xmas day': '25 December',
  'xmas eve': '24 December',
  'new year': '1 January',
  "new year's day": '1 January',
  'new years day': '1 January',
  "new year's": '1 January',
  'new years': '1 January',
};

/** Numbers said as words, one to twelve ("within two weeks"). */
const NUMBER_WORDS = [
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
];

/** The days of the week as Date's getUTCDay counts them, Sunday first. */
const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const WEEKDAYS = WEEKDAY_NAMES.map((name) => name.toLowerCase());

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
