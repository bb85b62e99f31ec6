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
];

/**
 * `closing this week`, `closing this month`, `closing next week`, `closing next month`, `closing in
 * 10 days`, `within 2 weeks`, `before 1 March`.
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
      const read = readDay(candidate, today);
      if (!read) continue;
      const { day, nextYear } = read;
      const until = differenceInCalendarDays(day, today, IN_UTC) - (word.toLowerCase() === 'before' ? 1 : 0);
      if (until < 0 || until > 9999) return null;
      const spoken = new RegExp(
        `\\s${CLOSING}?${escapeRegExp(word)}\\s+(?:the\\s+)?${tokens
          .slice(0, count)
          .map((token) => escapeRegExp(token))
          .join('[\\s,]+')}(?:st|nd|rd|th)?`,
        'i',
      );
      const typed = spoken.exec(text)?.[0].trim() ?? '';
      return {
        filter: `closes<${until}d`,
        rest: text.replace(spoken, ' '),
        ...(nextYear
          ? { dayOfNextYear: { typed, day: formatISO(day, { representation: 'date', ...IN_UTC }) } }
          : {}),
      };
    }
  }
  return null;
}

/**
 * A day as people write one. Without a year, the next such day from today: a closing date looks
 * forward, so "by 12 May" typed on 13 May is next year's (`nextYear`, for the answer to say so).
 */
function readDay(text: string, today: Date): { day: Date; nextYear: boolean } | null {
  for (const format of DAY_FORMATS) {
    const day = parseDate(text, format, today, IN_UTC);
    if (!isValid(day)) continue;
    const nextYear = !format.includes('yyyy') && day < today;
    return { day: nextYear ? parseDate(text, format, addDays(today, 366, IN_UTC), IN_UTC) : day, nextYear };
  }
  return null;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
