/*
 * Time phrases of a sentence read as closing-date filters (readSentence's dates): `closing this
 * month`, `within 2 weeks`, `before 1 March`, counted in UTC days as the filters are.
 */
import { addDays } from 'date-fns/addDays';
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { endOfMonth } from 'date-fns/endOfMonth';
import { endOfWeek } from 'date-fns/endOfWeek';
import { formatISO } from 'date-fns/formatISO';
import { isValid } from 'date-fns/isValid';
import { parse as parseDate } from 'date-fns/parse';
import { startOfDay } from 'date-fns/startOfDay';
import { IN_UTC } from '../../../shared/utc.ts';

/** A day typed without a year read as next year's: as typed, and the day (for the answer to say so). */
export interface DayOfNextYear {
  typed: string;
  day: string;
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
  'd.M.yyyy',
  'd/M',
];

/**
 * `closing this week`, `closing this month`, `closing next week`, `closing next month`, `closing in
 * 10 days`, `within 2 weeks`, `before 1 March`, `by Friday`, `closing today`, `closing tomorrow`,
 * `closing on 12 May`, `closing 12/05/2027`.
 */
export function readClosing(
  text: string,
  now: Date,
): { filter: string; rest: string; dayOfNextYear?: DayOfNextYear } | null {
  const today = startOfDay(now, IN_UTC);
  const thisPeriod = new RegExp(
    `\\s${CLOSING}(?:this|by the end of (?:the|this))\\s+(week|month)(?=[\\s,.!?;])`,
    'i',
  );
  const period = thisPeriod.exec(text);
  if (period) {
    const end =
      (period[1] ?? '').toLowerCase() === 'week'
        ? endOfWeek(today, { weekStartsOn: 1, ...IN_UTC })
        : endOfMonth(today, IN_UTC);
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
    `\\s(?:${CLOSING}(?:in|within)(?:\\s+the\\s+next)?|within(?:\\s+the\\s+next)?)\\s+(\\d{1,3})\\s+(days?|weeks?)(?=[\\s,.!?;])`,
    'i',
  );
  const days = inDays.exec(text);
  if (days) {
    const unit = /^w/i.test(days[2] ?? '') ? 'w' : 'd';
    return { filter: `closes<${days[1]}${unit}`, rest: text.replace(days[0], ' ') };
  }
  // `closing today`, `closing tomorrow`: that one day.
  const namedDay = new RegExp(`\\s${CLOSING}(today|tonight|tomorrow)(?=[\\s,.!?;])`, 'i').exec(text);
  if (namedDay) {
    const ahead = /^tomorrow$/i.test(namedDay[1] ?? '') ? 1 : 0;
    return { filter: oneDay(ahead), rest: text.replace(namedDay[0], ' ') };
  }
  // `before 1 March`, `closing by Friday`: up to the day (before it, or on it).
  const byDay = readDayAfter(text, `${CLOSING}?(before|by)\\s+`, today);
  if (byDay) {
    const until = byDay.daysAhead - (byDay.word.toLowerCase() === 'before' ? 1 : 0);
    if (until < 0) return null;
    return { ...byDay.read, filter: `closes<${until}d` };
  }
  // `closing on 12 May`, `closing 12/05/2027`, `closing Friday`: that one day.
  const onDay = readDayAfter(text, `${CLOSING}(?:(on)\\s+)?`, today);
  if (onDay) return { ...onDay.read, filter: oneDay(onDay.daysAhead) };
  return null;
}

/** The filter of one day `ahead` days from today: `closes<0d` for today, else from it and within it. */
function oneDay(ahead: number): string {
  return ahead === 0 ? 'closes<0d' : `closes>${ahead}d closes<${ahead}d`;
}

/**
 * A day named after `lead` (a pattern ending in its spaces, whose group, if any, is the word said:
 * `by`, `on`):
 * how many days ahead it is, the lead word, and the text without the phrase (with the day typed
 * without a year read as next year's, said). Null when no day reads there, or one in the past or
 * more than 9,999 days ahead.
 */
function readDayAfter(
  text: string,
  lead: string,
  today: Date,
): { daysAhead: number; word: string; read: { rest: string; dayOfNextYear?: DayOfNextYear } } | null {
  const found = new RegExp(`\\s${lead}((?:the\\s+)?[\\w/.,-]+(?:\\s+[\\w,]+){0,2})`, 'i').exec(text);
  if (!found) return null;
  const word = found[1] ?? '';
  const phrase = found[2] ?? '';
  // The longest run of words that reads as a day: `1 March 2027`, `1 March`, `2027-03-01`.
  const tokens = phrase
    .replace(/^the\s+/i, '')
    .replace(/,/g, ' ')
    .replace(/\.$/, '')
    .split(/\s+/)
    .filter(Boolean);
  for (let count = Math.min(3, tokens.length); count >= 1; count--) {
    const candidate = tokens
      .slice(0, count)
      .join(' ')
      .replace(/(\d)(st|nd|rd|th)\b/i, '$1');
    const read = readDay(candidate, today);
    if (!read) continue;
    const { day, nextYear } = read;
    const daysAhead = differenceInCalendarDays(day, today, IN_UTC);
    if (daysAhead < 0 || daysAhead > 9999) return null;
    const spoken = new RegExp(
      `\\s${lead}(?:the\\s+)?${tokens
        .slice(0, count)
        .map((token) => escapeRegExp(token))
        .join('[\\s,]+')}(?:st|nd|rd|th)?`,
      'i',
    );
    const typed = spoken.exec(text)?.[0].trim() ?? '';
    return {
      daysAhead,
      word,
      read: {
        rest: text.replace(spoken, ' '),
        ...(nextYear
          ? { dayOfNextYear: { typed, day: formatISO(day, { representation: 'date', ...IN_UTC }) } }
          : {}),
      },
    };
  }
  return null;
}

/**
 * A day as people write one. Without a year, the next such day from today: a closing date looks
 * forward, so "by 12 May" typed on 13 May is next year's (`nextYear`, for the answer to say so).
 */
function readDay(text: string, today: Date): { day: Date; nextYear: boolean } | null {
  // `Friday`, `fri`: the next one, or today on a Friday.
  const typed = text.toLowerCase();
  const weekday = typed.length >= 3 ? WEEKDAYS.findIndex((name) => name.startsWith(typed)) : -1;
  if (weekday >= 0)
    return { day: addDays(today, (weekday - today.getUTCDay() + 7) % 7, IN_UTC), nextYear: false };
  for (const format of DAY_FORMATS) {
    const day = parseDate(text, format, today, IN_UTC);
    if (!isValid(day)) continue;
    const nextYear = !format.includes('yyyy') && day < today;
    return { day: nextYear ? parseDate(text, format, addDays(today, 366, IN_UTC), IN_UTC) : day, nextYear };
  }
  return null;
}

/** The days of the week as Date's getUTCDay counts them, Sunday first. */
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
