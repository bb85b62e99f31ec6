import { describe, expect, it } from 'vitest';
import {
  catchUp,
  describeSchedule,
  formatLocal,
  knownTimeZone,
  localDay,
  nextRunAfter,
  parseLocalTime,
} from '../../../../src/app/features/subscriptions/schedule.ts';

const utc = (text: string) => new Date(text);

describe('due times in the subscriber’s time zone', () => {
  it('keeps daily 09:00 at 09:00 local across the spring and autumn changes', () => {
    const london = { cadence: 'daily', localTime: '09:00', timeZone: 'Europe/London' } as const;
    // 2026-03-29: clocks go forward in London (GMT → BST).
    expect(nextRunAfter(london, utc('2026-03-28T08:00:00Z'))).toEqual(utc('2026-03-28T09:00:00Z'));
    expect(nextRunAfter(london, utc('2026-03-28T09:00:00Z'))).toEqual(utc('2026-03-29T08:00:00Z'));
    expect(nextRunAfter(london, utc('2026-03-29T08:00:00Z'))).toEqual(utc('2026-03-30T08:00:00Z'));
    // 2026-10-25: back to GMT.
    expect(nextRunAfter(london, utc('2026-10-24T08:00:00Z'))).toEqual(utc('2026-10-25T09:00:00Z'));
    const newYork = { cadence: 'daily', localTime: '17:30', timeZone: 'America/New_York' } as const;
    // 2026-11-01: New York leaves daylight time.
    expect(nextRunAfter(newYork, utc('2026-10-31T21:30:00Z'))).toEqual(utc('2026-11-01T22:30:00Z'));
  });

  it('posts weekly ones on Mondays and hourly ones on the local hour', () => {
    const weekly = { cadence: 'weekly', localTime: '08:30', timeZone: 'Europe/Paris' } as const;
    // Sunday 22 Nov 2026 → Monday 23 Nov 08:30 Paris (07:30 UTC).
    expect(nextRunAfter(weekly, utc('2026-11-22T12:00:00Z'))).toEqual(utc('2026-11-23T07:30:00Z'));
    expect(nextRunAfter(weekly, utc('2026-11-23T07:30:00Z'))).toEqual(utc('2026-11-30T07:30:00Z'));
    const hourly = { cadence: 'hourly', localTime: '09:00', timeZone: 'Asia/Kolkata' } as const;
    expect(nextRunAfter(hourly, utc('2026-11-22T12:10:00Z'))).toEqual(utc('2026-11-22T12:30:00Z'));
    expect(nextRunAfter(hourly, utc('2026-11-22T12:30:00Z'))).toEqual(utc('2026-11-22T13:30:00Z'));
    // Across London's autumn change, an hour is an hour.
    const london = { ...hourly, timeZone: 'Europe/London' };
    expect(nextRunAfter(london, utc('2026-10-25T00:59:00Z'))).toEqual(utc('2026-10-25T01:00:00Z'));
    expect(nextRunAfter(london, utc('2026-10-25T01:00:00Z'))).toEqual(utc('2026-10-25T02:00:00Z'));
  });

  it('after downtime posts the latest due time still in its period and counts the others skipped', () => {
    const daily = { cadence: 'daily', localTime: '09:00', timeZone: 'UTC' } as const;
    const missed = catchUp(daily, utc('2026-11-20T09:00:00Z'), utc('2026-11-22T10:00:00Z'));
    expect(missed).toEqual({
      dueAt: utc('2026-11-22T09:00:00Z'),
      skipped: 2,
      nextRunAt: utc('2026-11-23T09:00:00Z'),
    });
    // Due and on time: nothing skipped.
    expect(catchUp(daily, utc('2026-11-22T09:00:00Z'), utc('2026-11-22T09:00:00Z')).skipped).toBe(0);
    // A year of an hourly schedule does not take long, and still lands on the last hour.
    const hourly = { ...daily, cadence: 'hourly' } as const;
    const year = catchUp(hourly, utc('2025-11-22T09:00:00Z'), utc('2026-11-22T09:30:00Z'));
    expect(year.dueAt).toEqual(utc('2026-11-22T09:00:00Z'));
    expect(year.skipped).toBe(365 * 24);
  });

  it('reads times and zones people and Slack give, and says the schedule plainly', () => {
    expect(parseLocalTime('9:05')).toBe('09:05');
    expect(parseLocalTime('24:00')).toBeNull();
    expect(parseLocalTime('noon')).toBeNull();
    expect(knownTimeZone('Not/A_Zone')).toBe('UTC');
    expect(knownTimeZone(undefined)).toBe('UTC');
    expect(describeSchedule({ cadence: 'weekly', localTime: '08:30', timeZone: 'America/New_York' })).toBe(
      'weekly on Mondays at 08:30 (America/New York)',
    );
    expect(formatLocal(utc('2026-11-23T07:30:00Z'), 'Europe/Paris')).toBe('Mon 23 Nov, 08:30');
  });
});

describe('the day it is in a zone', () => {
  it('changes at local midnight, to the millisecond, however the asks are ordered', () => {
    // Asked in the minute before midnight first, then at midnight, then back: each its own day.
    expect(localDay(utc('2026-11-22T22:59:59.999Z'), 'Europe/Paris')).toBe('2026-11-22');
    expect(localDay(utc('2026-11-22T23:00:00.000Z'), 'Europe/Paris')).toBe('2026-11-23');
    expect(localDay(utc('2026-11-22T22:59:30.000Z'), 'Europe/Paris')).toBe('2026-11-22');
    // The same instant is another day in another zone (a zone half an hour off the hour too).
    expect(localDay(utc('2026-11-22T18:29:59.999Z'), 'Asia/Kolkata')).toBe('2026-11-22');
    expect(localDay(utc('2026-11-22T18:30:00.000Z'), 'Asia/Kolkata')).toBe('2026-11-23');
    expect(localDay(utc('2026-11-22T18:30:00.000Z'), 'America/New_York')).toBe('2026-11-22');
    // An unknown zone is read as UTC, as everywhere else.
    expect(localDay(utc('2026-11-22T23:59:59.999Z'), 'Mars/Olympus')).toBe('2026-11-22');
  });
});
