/* Deadline reminders: bookmarked tenders' closings, bids' tenders' closings and bids' target dates, each once per threshold. */
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { z } from 'zod';
import { IN_UTC } from '../../../shared/utc.ts';
import { PAST_SUBMISSION } from '../../shared/views/bid-parts.ts';
import { formatDayOf } from '../../shared/views/formats.ts';
import { code, joinMrkdwn, type Mrkdwn, mrkdwn, text as plain, safeText } from '../../shared/views/mrkdwn.ts';
import { contextLine, deadlineMrkdwn, section } from '../../shared/views/tender-card.ts';
import { idsOldestFirst } from '../bids/index.ts';
import { type BuildInput, type Built, countdownLocal, DAY_MS, tenderDeadline } from './post-contract.ts';
import { localDay } from './schedule.ts';
import { type PostNotes, postHead, splitIntoParts } from './views/subscription-messages.ts';

export const DeadlinesTarget = z.strictObject({ days: z.number().int().min(1).max(90) });

// ---------------------------------------------------------------------------------------------
// Deadline reminders

/** Reminder thresholds in days: each item is reminded once per threshold it crosses. */
function thresholdsFor(days: number): number[] {
  return [...new Set([days, 7, 3, 1].filter((each) => each <= days))].sort((a, b) => b - a);
}

/** `7, 3 and 1 days`, `1 day`: the thresholds as the post says them. */
function thresholdWords(thresholds: number[]): string {
  const listed =
    thresholds.length > 1
      ? `${thresholds.slice(0, -1).join(', ')} and ${thresholds.at(-1)}`
      : `${thresholds[0]}`;
  return `${listed} ${thresholds.length === 1 && thresholds[0] === 1 ? 'day' : 'days'}`;
}

/** The smallest threshold `remaining` is within, or null when it is further off than all. */
function thresholdOf(remaining: number, thresholds: number[]): number | null {
  const within = thresholds.filter((threshold) => remaining <= threshold);
  return within.length > 0 ? Math.min(...within) : null;
}

export async function deadlineReminders(input: BuildInput, notes: PostNotes): Promise<Built> {
  const { client, subscription, delivery, now, exclude } = input;
  const { days } = DeadlinesTarget.parse(JSON.parse(subscription.target));
  const thresholds = thresholdsFor(days);
  const today = localDay(now, subscription.timeZone);
  /** `also`: reminders said in the same line (a bid's target date in its tender's closing line). */
  const lines: { key: string; also?: string[]; order: number; line: Mrkdwn; overdue?: true }[] = [];
  // Within the window but reminded in an earlier post: counted, so the post does not read as all there is.
  let remindedBefore = 0;
  /**
   * A tender's closing, once per threshold: the key is the tender's whether it is reminded as a
   * bookmark or as the tender of a bid (said once, as the bid's when there is one).
   */
  const closingKey = (tenderId: string, deadline: string): { key: string } | null | 'reminded' => {
    const remaining = (Date.parse(deadline) - now.getTime()) / DAY_MS;
    if (remaining <= 0) return null;
    const threshold = thresholdOf(remaining, thresholds);
    if (threshold === null) return null;
    const key = `deadline:tender:${tenderId}:${deadline}:${threshold}`;
    return exclude.has(key) ? 'reminded' : { key };
  };
  let read = 0;
  const bookmarked = new Map<string, { title: string; deadline: string | null }>();
  for await (const bookmark of client.bookmarks.all({ limit: 100 })) {
    if (++read > 1000) break;
    bookmarked.set(bookmark.tenderId, { title: bookmark.tender.title, deadline: bookmark.tender.deadline });
  }
  read = 0;
  const bids: {
    pipeline: { id: string; name: string };
    key: string;
    target: string;
    overdue: boolean;
  }[] = [];
  const bidTenders: {
    pipeline: { id: string; name: string; targetSubmissionDate: string | null };
    tenderId: string;
  }[] = [];
  for await (const pipeline of client.pipelines.all({ archived: 'active', limit: 100 })) {
    if (++read > 1000) break;
    if (PAST_SUBMISSION.includes(pipeline.status)) continue;
    // The tender's closing is the bid's real deadline, whatever the target date says.
    if (pipeline.tenderId) bidTenders.push({ pipeline, tenderId: pipeline.tenderId });
    const target = pipeline.targetSubmissionDate;
    if (!target) continue;
    const remaining = differenceInCalendarDays(
      new Date(`${target}T00:00:00Z`),
      new Date(`${today}T00:00:00Z`),
      IN_UTC,
    );
    // A bid whose target date passed unsubmitted is said once, as overdue, while the date is
    // within the window behind (a bid forgotten for months is not listed at every new reminder).
    if (remaining < -days) continue;
    const threshold = remaining < 0 ? 'overdue' : thresholdOf(remaining, thresholds);
    if (threshold === null) continue;
    const key = `deadline:pipeline:${pipeline.id}:${target}:${threshold}`;
    if (exclude.has(key)) {
      remindedBefore += 1;
      continue;
    }
    bids.push({ pipeline, key, target, overdue: remaining < 0 });
  }
  // The closing of each bid's tender: from the bookmarks when there, else read (a few at most, and
  // once a pass, as a summary reads them).
  const closings = await tenderClosings(
    input,
    bidTenders.map((bid) => bid.tenderId).filter((id) => !bookmarked.has(id)),
  );
  // One line a tender closing, naming every bid on it; a bid's own target date, when due in this
  // post too, is said in that line (and reminded with it) rather than in a line of its own.
  const byTender = new Map<string, typeof bidTenders>();
  for (const bid of bidTenders) byTender.set(bid.tenderId, [...(byTender.get(bid.tenderId) ?? []), bid]);
  const targetsDue = new Map(bids.map((bid) => [bid.pipeline.id, bid]));
  const closingGroups: { key: string; deadline: string; bids: typeof bidTenders; keys: string[] }[] = [];
  const saidAsBid = new Set<string>();
  for (const [tenderId, onTender] of byTender) {
    const deadline = bookmarked.get(tenderId)?.deadline ?? closings.get(tenderId) ?? null;
    if (!deadline) continue;
    const closing = closingKey(tenderId, deadline);
    if (closing === null) continue;
    saidAsBid.add(tenderId);
    if (closing === 'reminded') {
      remindedBefore += 1;
      continue;
    }
    const folded = onTender.flatMap(({ pipeline }) => {
      const due = targetsDue.get(pipeline.id);
      if (!due) return [];
      targetsDue.delete(pipeline.id);
      return [due.key];
    });
    closingGroups.push({ key: closing.key, deadline, bids: onTender, keys: folded });
  }
  for (const [tenderId, tender] of bookmarked) {
    if (!tender.deadline || saidAsBid.has(tenderId)) continue;
    const closing = closingKey(tenderId, tender.deadline);
    if (closing === null) continue;
    if (closing === 'reminded') {
      remindedBefore += 1;
      continue;
    }
    lines.push({
      key: closing.key,
      order: Date.parse(tender.deadline),
      line: mrkdwn`:bookmark: *${safeText(tender.title, 300)}* ${deadlineMrkdwn(tender.deadline, now)} · ${code(tenderId, 200)}`,
    });
  }
  // Numbered as they were started, not in the order of their deadlines.
  const named = idsOldestFirst([
    ...bids.map((bid) => bid.pipeline),
    ...closingGroups.flatMap((group) => group.bids.map((bid) => bid.pipeline)),
  ]);
  const references = named.length
    ? ((await input.bidReferences?.(named)) ?? new Map<string, string>())
    : new Map<string, string>();
  /** What a line says of a bid after its name: its target date and its reference. */
  const bidFacts = (pipeline: { id: string; targetSubmissionDate: string | null }) => {
    const reference = references.get(pipeline.id);
    const target = pipeline.targetSubmissionDate;
    return mrkdwn`${target ? mrkdwn` · target date ${plain(countdownLocal(target, today))}` : mrkdwn``}${reference ? mrkdwn` · ${code(reference)}` : mrkdwn``}`;
  };
  for (const { key, deadline, bids: onTender, keys } of closingGroups) {
    const [only] = onTender;
    lines.push({
      key,
      also: keys,
      order: Date.parse(deadline),
      line:
        onTender.length === 1 && only
          ? mrkdwn`:dart: *${safeText(only.pipeline.name, 300)}* · its tender ${deadlineMrkdwn(deadline, now)}${bidFacts(only.pipeline)}`
          : mrkdwn`:dart: Their tender ${deadlineMrkdwn(deadline, now)}: ${joinMrkdwn(
              onTender.map((bid) => mrkdwn`*${safeText(bid.pipeline.name, 300)}*${bidFacts(bid.pipeline)}`),
              mrkdwn`; `,
            )}`,
    });
  }
  for (const { pipeline, key, target, overdue } of targetsDue.values()) {
    const reference = references.get(pipeline.id);
    lines.push({
      key,
      ...(overdue ? { overdue: true as const } : {}),
      order: Date.parse(`${target}T23:59:59Z`),
      // Named as its card names it (a bid called “Bid: …” must not read “Bid Bid: …”), by its reference.
      line: mrkdwn`:dart: *${safeText(pipeline.name, 300)}* · target date ${plain(countdownLocal(target, today))}${reference ? mrkdwn` · ${code(reference)}` : mrkdwn``}`,
    });
  }
  if (lines.length === 0) {
    if (!delivery.manual) return { kind: 'empty', cursor: null };
    const none = mrkdwn`:calendar: Nothing bookmarked or bid on is due within ${days} ${days === 1 ? mrkdwn`day` : mrkdwn`days`} that was not reminded already.`;
    return { kind: 'empty', cursor: null, said: { text: none, blocks: postHead(none, notes) } };
  }
  lines.sort((a, b) => a.order - b.order);
  const overdue = lines.filter((entry) => entry.overdue).length;
  const within = lines.length - overdue;
  const daysWord = days === 1 ? mrkdwn`1 day` : mrkdwn`${days} days`;
  const heading = mrkdwn`:calendar: *Due within ${daysWord}${overdue > 0 ? mrkdwn`, or overdue` : mrkdwn``}* (as of ${plain(formatDayOf(now))})`;
  const summary = joinMrkdwn(
    [
      ...(within > 0
        ? [mrkdwn`${within} ${within === 1 ? mrkdwn`deadline` : mrkdwn`deadlines`} within ${daysWord}`]
        : []),
      ...(overdue > 0
        ? [mrkdwn`${overdue} ${overdue === 1 ? mrkdwn`bid` : mrkdwn`bids`} past the target date`]
        : []),
    ],
    mrkdwn`; `,
  );
  const groups = lines.map((entry) => [section(entry.line)]);
  return {
    kind: 'post',
    frozen: {
      parts: splitIntoParts(
        summary,
        [
          ...postHead(heading, notes),
          contextLine(
            mrkdwn`Each is reminded once as it comes within ${plain(thresholdWords(thresholds))}, and a bid once more if its target date passes before it is submitted.${remindedBefore > 0 ? mrkdwn` ${remindedBefore} more within ${daysWord} ${remindedBefore === 1 ? mrkdwn`was` : mrkdwn`were`} reminded before.` : mrkdwn``}`,
          ),
        ],
        groups,
      ),
      itemKeys: lines.flatMap((entry) => [entry.key, ...(entry.also ?? [])]),
      cursor: null,
      skippedSaid: notes.skipped,
    },
  };
}

/** The most bid tenders read for one reminder post (beyond them, bids are reminded by target date only). */
const BID_TENDERS_READ = 50;

/** Each tender's closing (null when it gives none or cannot be read now), read a few at a time. */
async function tenderClosings(
  input: BuildInput,
  ids: readonly string[],
): Promise<Map<string, string | null>> {
  const closings = new Map<string, string | null>();
  const unique = [...new Set(ids)].slice(0, BID_TENDERS_READ);
  for (let start = 0; start < unique.length; start += 5)
    await Promise.all(
      unique.slice(start, start + 5).map(async (id) => closings.set(id, await tenderDeadline(input, id))),
    );
  return closings;
}
