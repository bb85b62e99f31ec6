/* A date of a bid set after its tender closes: the check, and the warning beside the date on cards. */
import type { Pipeline } from '../../../../contract/schemas.ts';
import { daysUntil, formatDay, PAST_SUBMISSION, span } from '../../../shared/views/bid-parts.ts';
import { type Mrkdwn, mrkdwn, text as plain } from '../../../shared/views/mrkdwn.ts';
import { deadlineMoment, deadlineUtc, setsATime } from '../../../shared/views/tender-card.ts';

/**
 * The tender's deadline day (`2026-12-19`) while the deadline is still ahead, else null: a date
 * after a deadline that has passed is no news (the tender is closed, and its card and forms say
 * so already). `deadline` is the tender's, an instant.
 */
export function openDeadlineDay(deadline: string | null, now: Date): string | null {
  const open = openDeadline(deadline, now);
  // The UTC day of the instant, as the forms' question counts it (a `+01:00` deadline at midnight is the day before).
  return open ? open.slice(0, 10) : null;
}

/** The UTC day (`2026-12-19`) of a deadline, passed or not; null when there is none or it is no instant. */
export function deadlineDay(deadline: string | null | undefined): string | null {
  return openDeadline(deadline, new Date(0))?.slice(0, 10) ?? null;
}

/** The tender's deadline (an instant) while it is still ahead, else null: what a form says under its dates. */
export function openDeadline(deadline: string | null | undefined, now: Date): string | null {
  if (!deadline) return null;
  const time = Date.parse(deadline);
  // As an ISO instant (24 characters): what a form's metadata carries, whatever form the service wrote.
  return Number.isNaN(time) || time < now.getTime() ? null : new Date(time).toISOString();
}

/**
 * `19 Dec 2026, 12:00 UTC`, or `19 Dec 2026` for a deadline the notice gives as a day (midnight): for
 * plain text (a form's hint or error); mrkdwn gives the time in each reader's own (`deadlineMoment`).
 */
export function formatClosing(deadline: string): string {
  return deadlineUtc(new Date(deadline));
}

/** The hint under a form's date: `The tender closes 19 Dec 2026, 12:00 UTC.` */
export function closingHint(deadline: string): { hint: { type: 'plain_text'; text: string } } {
  return { hint: { type: 'plain_text', text: `The tender closes ${formatClosing(deadline)}.` } };
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

/**
 * `10 Jan 2027, 05:30 UTC · in 42 days`, `… · in 3 hours` (the time in each reader's own zone where
 * Slack draws dates): when the bid's tender closes, for its card, while the deadline is ahead (null
 * otherwise: a closed tender's card says so elsewhere).
 */
export function tenderClosesWhen(deadline: string | null | undefined, now: Date): Mrkdwn | null {
  const open = openDeadline(deadline, now);
  if (!open) return null;
  const day = open.slice(0, 10);
  const days = daysUntil(day, now);
  // Within the day, the time left: a bid lead acts differently on "in 50 minutes" than on "today".
  // A time within two days too: "tomorrow" would be UTC's, and each reader sees the time in their own zone.
  const minutes = Math.floor((Date.parse(open) - now.getTime()) / 60_000);
  const timed = setsATime(new Date(open));
  const when =
    minutes < 60
      ? `in ${minutes} minute${minutes === 1 ? '' : 's'}`
      : minutes < 24 * 60 || (timed && minutes < 48 * 60)
        ? `in ${Math.floor(minutes / 60)} hour${minutes < 120 ? '' : 's'}`
        : days === 1
          ? 'tomorrow'
          : `in ${span(days)}`;
  return mrkdwn`${deadlineMoment(new Date(open))} · ${plain(when)}`;
}
