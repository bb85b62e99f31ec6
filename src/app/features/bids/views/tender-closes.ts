/* A date of a bid set after its tender closes: the check, and the warning beside the date on cards. */
import type { Pipeline } from '../../../../contract/schemas.ts';
import { formatDay, PAST_SUBMISSION } from '../../../shared/views/bid-parts.ts';
import { type Mrkdwn, mrkdwn, text as plain } from '../../../shared/views/mrkdwn.ts';

/**
 * The tender's deadline day (`2026-12-19`) while the deadline is still ahead, else null: a date
 * after a deadline that has passed is no news (the tender is closed, and its card and forms say
 * so already). `deadline` is the tender's, an instant.
 */
export function openDeadlineDay(deadline: string | null, now: Date): string | null {
  if (!deadline || Date.parse(deadline) < now.getTime()) return null;
  return deadline.slice(0, 10);
}

/** Whether `day` (`YYYY-MM-DD`) falls after the deadline's day (the day itself is in time). */
export function isAfterDeadline(day: string | null, deadlineDay: string | null): boolean {
  return day !== null && deadlineDay !== null && day > deadlineDay;
}

/**
 * The day a card compares a bid's dates with: the tender's open deadline, while the bid is still
 * to be submitted (a bid past its submission has no date left to miss).
 */
export function cardClosingDay(
  deadline: string | null | undefined,
  status: Pipeline['status'],
  now: Date,
): string | null {
  return PAST_SUBMISSION.includes(status) ? null : openDeadlineDay(deadline ?? null, now);
}

/** ` :warning: after the tender closes (19 Dec 2026)` beside a date after it; nothing otherwise. */
export function afterClosingNote(day: string | null, closingDay: string | null): Mrkdwn {
  return isAfterDeadline(day, closingDay)
    ? mrkdwn` :warning: after the tender closes (${plain(formatDay(closingDay as string))})`
    : mrkdwn``;
}
