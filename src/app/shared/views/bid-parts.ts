import type { Pipeline, Stage } from '../../../contract/schemas.ts';
import { formatDayOf } from './formats.ts';

export const STATUS_LABELS: Record<Pipeline['status'], string> = {
  draft: 'Draft',
  qualifying: 'Qualifying',
  bidding: 'Bidding',
  on_hold: 'On hold',
  submitted: 'Submitted',
  won: 'Won',
  lost: 'Lost',
  no_bid: 'No bid',
};

export const STAGE_LABELS: Record<Stage['status'], string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  blocked: 'Blocked',
  completed: 'Completed',
};

/** `▰▰▰▱▱ 3/5 done`: one mark per stage, ten at most. */
export function progressBar(done: number, total: number): string {
  // Stages are set when a bid starts: one started without any gets none later, so never "yet".
  if (total <= 0) return 'No stages';
  const marks = Math.min(total, 10);
  const filled = Math.round((done / total) * marks);
  return `${'▰'.repeat(filled)}${'▱'.repeat(marks - filled)} ${done}/${total} done`;
}

/**
 * "1 Dec 2026 · in 9 days", "… · due tomorrow", "… · due today", "… · overdue by 2 days"; the date alone once the bid
 * is past its submission (a won bid is not "overdue by 2,521 days").
 */
export function countdown(
  day: string | null,
  now: Date,
  bid?: { status: Pipeline['status']; archived?: boolean },
): string {
  if (!day) return 'no target date set';
  // Submitted, settled or archived: nobody works to the date any more; it is said, not counted down.
  if (bid && (bid.archived === true || PAST_SUBMISSION.includes(bid.status))) return formatDay(day);
  const days = daysUntil(day, now);
  // A date the service should never send (not a day): said as it is, with no count.
  if (!Number.isFinite(days)) return formatDay(day);
  // As a tender's deadline says its days: tomorrow is "tomorrow", not "in 1 day".
  const when =
    days > 1
      ? `in ${span(days)}`
      : days === 1
        ? 'due tomorrow'
        : days === 0
          ? 'due today'
          : `overdue by ${span(days)}`;
  return `${formatDay(day)} · ${when}`;
}

/**
 * A number of days as people count them: days up to 60, then months, then years from two years
 * on, each rounded to the nearest ("overdue by 7 years", not "by 2517 days"; 61 days is "2
 * months"): the count never goes down as the days go up, and the date beside it says the day.
 */
export function span(days: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const whole = Math.abs(days);
  if (whole <= 60) return plural(whole, 'day');
  if (whole < DAYS_A_YEAR * 2) return plural(Math.round(whole / (DAYS_A_YEAR / 12)), 'month');
  return plural(Math.round(whole / DAYS_A_YEAR), 'year');
}

/** The Gregorian calendar's mean year. */
const DAYS_A_YEAR = 365.2425;

/** `1 Dec 2026` from `2026-12-01`. */
export function formatDay(day: string): string {
  return formatDayOf(new Date(`${day}T00:00:00Z`));
}

/** A bid that is over (won, lost, not bid): it no longer runs, whatever its stages say. */
export const ENDED: readonly Pipeline['status'][] = ['won', 'lost', 'no_bid'];

/** Statuses past the submission: the target date is history, neither due nor overdue. */
export const PAST_SUBMISSION: readonly Pipeline['status'][] = ['submitted', 'won', 'lost', 'no_bid'];

/** Whole calendar days from today (UTC) to `day`: negative when it has passed. */
export function daysUntil(day: string, now: Date): number {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Math.round((Date.parse(`${day}T00:00:00Z`) - today) / 86_400_000);
}
