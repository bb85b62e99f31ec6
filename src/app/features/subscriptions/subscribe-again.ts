import type { z } from 'zod';
import { code, joinMrkdwn, type Mrkdwn, mrkdwn, text as plain } from '../../shared/views/mrkdwn.ts';
import type {
  ChannelSubscribing,
  ChannelSubscription,
  Subscription,
  SubscriptionKind,
} from '../../storage/subscription-store.ts';
import { DeadlinesTarget, PipelineTarget, SearchTarget } from './content.ts';
import { describeSchedule, type Schedule } from './schedule.ts';

/**
 * What subscribing a channel to `wanted` does with what it already has. The same thing followed
 * (a bid's summary, a search, the deadline reminders) with the same key (`readsAsMine`: a person's
 * own key reads their own bookmarks and bids) on the same schedule is kept, not doubled. Deadline
 * reminders are one set a channel a key: another number of days or time changes the one there (two
 * would post the same reminders twice), the command saying the whole subscription, defaults
 * included (`/tender subscribe deadlines` is 7 days at 09:00 of the subscriber's zone). `alike`
 * are other reminders already following the same (two made before this rule, or at one moment):
 * they are left as they are, and said.
 */
export function subscribingAgain(
  wanted: Subscription,
  existing: readonly ChannelSubscription[],
  readsAsMine: (existing: ChannelSubscription) => boolean,
): { decision: ChannelSubscribing; alike: Subscription[] } {
  const alike = existing
    .filter(
      (each) =>
        each.subscription.kind === wanted.kind &&
        readsAsMine(each) &&
        followsSame(wanted.kind, each.subscription.target, wanted.target),
    )
    .map((each) => each.subscription);
  const exact = alike.find((each) => sameWindow(each, wanted) && sameSchedule(each, wanted));
  // A bid's summary or a feed at another time is another subscription, as it always was: a team
  // across time zones has the summary at 09:00 in London and at 17:30 in New York, so none of them
  // is said to follow the same. Reminders over other days would post the same reminders twice, so
  // only they are changed, and other sets of them said.
  if (wanted.kind !== 'deadlines')
    return { decision: exact ? { keep: exact } : { create: wanted }, alike: [] };
  const others = (chosen: Subscription) => alike.filter((each) => each.id !== chosen.id);
  if (exact) return { decision: { keep: exact }, alike: others(exact) };
  const chosen = alike.find((each) => sameWindow(each, wanted)) ?? alike[0];
  if (!chosen) return { decision: { create: wanted }, alike: [] };
  const schedule = sameSchedule(chosen, wanted) ? chosen : wanted;
  const changed: Subscription = {
    ...chosen,
    target: wanted.target,
    cadence: schedule.cadence,
    localTime: schedule.localTime,
    timeZone: schedule.timeZone,
    nextRunAt: schedule.nextRunAt,
  };
  return { decision: { change: changed }, alike: others(chosen) };
}

/**
 * The sentence of a change of deadline reminders, after "<@U> changed this channel’s deadline
 * reminders": their days ahead and when they post (`they now look 7 days ahead (they looked 14)`).
 */
export function changeSentence(before: Subscription, after: Subscription): Mrkdwn {
  const moved = sameSchedule(before, after)
    ? null
    : mrkdwn`now post ${plain(describeSchedule(after))}, no longer ${plain(describeSchedule(before))}`;
  const [was, now] = [daysOf(before.target), daysOf(after.target)];
  const looked =
    now !== null && was !== null && now !== was
      ? mrkdwn`now look ${now} ${now === 1 ? mrkdwn`day` : mrkdwn`days`} ahead (they looked ${was})`
      : null;
  return mrkdwn`they ${joinMrkdwn(
    [looked, moved].filter((part): part is Mrkdwn => part !== null),
    mrkdwn`, and `,
  )}`;
}

/** The others of a channel that follow the same as the one said (see subscribingAgain), and how to stop them. */
export function alikeSentence(alike: readonly Subscription[]): Mrkdwn {
  if (alike.length === 0) return mrkdwn``;
  const ids = joinMrkdwn(
    alike.map((each) => code(each.id)),
    mrkdwn`, `,
  );
  const stops = joinMrkdwn(
    alike.map((each) => code(`/tender unsubscribe ${each.id}`)),
    mrkdwn`, `,
  );
  return alike.length === 1
    ? mrkdwn` This channel also has ${ids}, which follows the same: ${stops} stops it, so nothing is posted twice.`
    : mrkdwn` This channel also has ${ids}, which follow the same: ${stops} stop them, so nothing is posted twice.`;
}

/** Posts at the same moments: the same cadence, and (but hourly, on the hour) the same time in the same zone. */
function sameSchedule(a: Schedule, b: Schedule): boolean {
  return (
    a.cadence === b.cadence &&
    (a.cadence === 'hourly' || (a.localTime === b.localTime && a.timeZone === b.timeZone))
  );
}

/** Reminders over the same days ahead (what the others follow is the same whenever they follow the same). */
function sameWindow(a: Subscription, b: Subscription): boolean {
  return a.kind !== 'deadlines' || daysOf(a.target) === daysOf(b.target);
}

function daysOf(target: string): number | null {
  return read(DeadlinesTarget, target)?.days ?? null;
}

function read<T>(schema: z.ZodType<T>, text: string): T | null {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Whether two targets of `kind` follow the same thing: the same bid, the same saved search or the
 * same words and filters (names and descriptions aside), the deadlines of the same bookmarks
 * (whatever the days ahead). Targets are read as the scheduler reads them; one that does not read
 * follows nothing the other does.
 */
function followsSame(kind: SubscriptionKind, a: string, b: string): boolean {
  if (kind === 'pipeline') {
    const [left, right] = [read(PipelineTarget, a), read(PipelineTarget, b)];
    return left !== null && left.p === right?.p;
  }
  if (kind === 'deadlines') return daysOf(a) !== null && daysOf(b) !== null;
  const [left, right] = [read(SearchTarget, a), read(SearchTarget, b)];
  if (!left || !right) return false;
  if (left.ss !== undefined || right.ss !== undefined) return left.ss === right.ss;
  // Deadlines counted from each post (`w`) compare as typed, not as the dates of the day subscribed.
  const followed = ({ f, w }: z.infer<typeof SearchTarget>) => {
    const { deadlineFrom, deadlineTo, ...rest } = f;
    const filters = w ? rest : { ...rest, deadlineFrom, deadlineTo };
    return JSON.stringify([sortedKeys(filters), sortedKeys(w)]);
  };
  return followed(left) === followed(right);
}

function sortedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).sort(([x], [y]) => x.localeCompare(y)));
}
