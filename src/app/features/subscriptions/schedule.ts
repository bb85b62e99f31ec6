import { TZDate } from '@date-fns/tz';
import { addDays } from 'date-fns/addDays';
import { format } from 'date-fns/format';
import type { Cadence } from '../../storage/subscription-store.ts';

/** When a subscription posts: its cadence, at `HH:MM` in the subscriber's own time zone. */
export interface Schedule {
  cadence: Cadence;
  /** `HH:MM`; hourly ones post on the hour whatever it says. */
  localTime: string;
  timeZone: string;
}

/** Weekly posts go out on Mondays: a bid team plans its week on Monday morning. */
const WEEKLY_DAY = 1;
export const DEFAULT_TIME = '09:00';
/** A post later than this after its due time says it is late. */
export const LATE_AFTER_MS = 10 * 60_000;

const HH_MM = /^([01]?\d|2[0-3]):([0-5]\d)$/;

/** `9:00`, `09:00` → `09:00`; null when it is not a time of day. */
export function parseLocalTime(text: string): string | null {
  const match = HH_MM.exec(text.trim());
  if (!match) return null;
  return `${(match[1] as string).padStart(2, '0')}:${match[2]}`;
}

/** An IANA zone this runtime knows (Slack's `tz`), else UTC. */
export function knownTimeZone(zone: string | null | undefined): string {
  if (!zone) return 'UTC';
  let known = KNOWN_ZONES.get(zone);
  if (known === undefined) {
    try {
      // Building a formatter is the check (and costs about a millisecond): each zone is checked once.
      new Intl.DateTimeFormat('en-GB', { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    if (KNOWN_ZONES.size < 1000) KNOWN_ZONES.set(zone, known);
  }
  return known ? zone : 'UTC';
}

const KNOWN_ZONES = new Map<string, boolean>();

/**
 * The first due time strictly after `after`. Computed on the local calendar (TZDate), so "daily
 * 09:00" is 09:00 local on both sides of a daylight-saving change; a time that does not exist that
 * day (inside the spring gap) moves forward as clocks do.
 */
export function nextRunAfter(schedule: Schedule, after: Date): Date {
  const zone = knownTimeZone(schedule.timeZone);
  const local = new TZDate(after.getTime(), zone);
  if (schedule.cadence === 'hourly') {
    // On the local hour (a zone half an hour off UTC posts at :30 UTC).
    const hour = new TZDate(
      local.getFullYear(),
      local.getMonth(),
      local.getDate(),
      local.getHours(),
      0,
      zone,
    ).getTime();
    let next = hour;
    while (next <= after.getTime()) next += 3_600_000;
    return new Date(next);
  }
  const [hours, minutes] = (parseLocalTime(schedule.localTime) ?? DEFAULT_TIME).split(':').map(Number) as [
    number,
    number,
  ];
  for (let day = 0; day <= 8; day++) {
    const date = addDays(
      new TZDate(local.getFullYear(), local.getMonth(), local.getDate(), 12, 0, zone),
      day,
    );
    if (schedule.cadence === 'weekly' && date.getDay() !== WEEKLY_DAY) continue;
    const candidate = new TZDate(date.getFullYear(), date.getMonth(), date.getDate(), hours, minutes, zone);
    if (candidate.getTime() > after.getTime()) return new Date(candidate.getTime());
  }
  throw new Error('no due time within eight days (unreachable)');
}

/**
 * After a time the app was not running: of the due times from `nextRunAt` up to `now`, the latest
 * is still inside its period (the next one has not come) and is posted; the earlier ones are
 * skipped and counted. Resolves with that due time, the count, and the run after it.
 */
export function catchUp(
  schedule: Schedule,
  nextRunAt: Date,
  now: Date,
): { dueAt: Date; skipped: number; nextRunAt: Date } {
  let dueAt = nextRunAt;
  let skipped = 0;
  // A long outage: count whole periods arithmetically (a daylight-saving hour rounds away) and
  // walk the last eight days only.
  const walkFrom = now.getTime() - 8 * 86_400_000;
  if (nextRunAt.getTime() < walkFrom) {
    dueAt = nextRunAfter(schedule, new Date(walkFrom));
    skipped = Math.round((dueAt.getTime() - nextRunAt.getTime()) / PERIOD_MS[schedule.cadence]);
  }
  for (let next = nextRunAfter(schedule, dueAt); next.getTime() <= now.getTime(); ) {
    skipped++;
    dueAt = next;
    next = nextRunAfter(schedule, dueAt);
  }
  return { dueAt, skipped, nextRunAt: nextRunAfter(schedule, dueAt) };
}

const PERIOD_MS: Record<Cadence, number> = { hourly: 3_600_000, daily: 86_400_000, weekly: 7 * 86_400_000 };

/** `Mon 30 Nov, 09:00` in the subscription's time zone. */
export function formatLocal(instant: Date, timeZone: string): string {
  return format(new TZDate(instant.getTime(), knownTimeZone(timeZone)), 'EEE d MMM, HH:mm');
}

/** `daily at 09:00 (Europe/London)`, `every hour`, `weekly on Mondays at 08:30 (…)`. */
export function describeSchedule(schedule: Schedule): string {
  if (schedule.cadence === 'hourly') return 'every hour';
  const at = `at ${schedule.localTime} (${schedule.timeZone.replace(/_/g, ' ')})`;
  return schedule.cadence === 'daily' ? `daily ${at}` : `weekly on Mondays ${at}`;
}

/** The day (`YYYY-MM-DD`) it is at `instant` in `timeZone`. */
export function localDay(instant: Date, timeZone: string): string {
  // Every post asks, thousands a second in a burst: the day is kept per zone for the minute it was
  // asked in (no zone changes its day within a minute: offsets are whole minutes).
  const minute = Math.floor(instant.getTime() / 60_000);
  const kept = LAST_DAY.get(timeZone);
  if (kept?.minute === minute) return kept.day;
  const day = formatDay(instant, timeZone);
  if (LAST_DAY.size < 1000 || kept) LAST_DAY.set(timeZone, { minute, day });
  return day;
}

const LAST_DAY = new Map<string, { minute: number; day: string }>();

function formatDay(instant: Date, timeZone: string): string {
  // One formatter per zone (building one costs far more than using it).
  const zone = knownTimeZone(timeZone);
  let formatter = DAY_FORMATTERS.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    if (DAY_FORMATTERS.size < 1000) DAY_FORMATTERS.set(zone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day}`;
}

const DAY_FORMATTERS = new Map<string, Intl.DateTimeFormat>();
