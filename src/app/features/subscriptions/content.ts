/*
 * Over 500 lines: what a channel post says, for each kind of subscription (a bid's summary, a
 * search's new tenders, deadline reminders), built to one contract (BuildInput → Built, frozen
 * once) with the same chunking and head; one file per kind would need that contract in a module
 * of its own first, or the kinds would import each other through it.
 */
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { z } from 'zod';
import { everyPage } from '../../../client/pagination.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Pipeline, Stage, Tender, ValueRule } from '../../../contract/schemas.ts';
import { IN_UTC } from '../../../shared/utc.ts';
import type { KeySource } from '../../adapters/workspace-clients.ts';
import { deadlineWindow } from '../../shared/commands/parse-command.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { SearchFiltersValue } from '../../shared/values/button-values.ts';
import { encodeIfFits } from '../../shared/values/codec.ts';
import {
  countdown,
  formatDay,
  PAST_SUBMISSION,
  progressBar,
  STAGE_LABELS,
  STATUS_LABELS,
} from '../../shared/views/bid-parts.ts';
import { formatDayOf } from '../../shared/views/formats.ts';
import type { Message } from '../../shared/views/messages.ts';
import {
  clip,
  clipMrkdwn,
  code,
  joinMrkdwn,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
  storedMrkdwn,
} from '../../shared/views/mrkdwn.ts';
import { type Block, button, contextLine, deadlineMrkdwn, section } from '../../shared/views/tender-card.ts';
import type { Delivery } from '../../storage/delivery-store.ts';
import type { Subscription } from '../../storage/subscription-store.ts';
import { afterClosingNote, cardClosingDay, tenderClosesWhen } from '../bids/index.ts';
import { formatLocal, LATE_AFTER_MS, localDay } from './schedule.ts';
import {
  FEED_CARDS,
  feedMessage,
  type ListedTender,
  type PostNotes,
  postHead,
  splitIntoParts,
} from './views/subscription-messages.ts';

// What a subscription follows, as stored in its `target` (parsed, never cast).
export const PipelineTarget = z.strictObject({
  p: z.string().min(1).max(300),
  /** Its name when subscribed, for lists and notices. */
  n: z.string().max(300).optional(),
});
export const SearchTarget = z.strictObject({
  f: SearchFiltersValue,
  /** How the search reads to a person, already escaped for mrkdwn. */
  d: z.string().max(500),
  /** The saved search it came from, if any. */
  ss: z.string().max(300).optional(),
  /**
   * `closes>`/`closes<` in days, counted from each post (the deadlines in `f` were counted from the
   * day it was subscribed: a feed of "closing within 14 days" must not stop after 14 days).
   */
  w: z
    .strictObject({
      after: z.number().int().min(0).max(9999).optional(),
      within: z.number().int().min(0).max(9999).optional(),
    })
    .optional(),
});
export const DeadlinesTarget = z.strictObject({ days: z.number().int().min(1).max(90) });

/** What the last summary showed of a bid; the optional fields are absent from summaries before 2026-11-29. */
const PipelineCursor = z.object({
  status: z.string(),
  name: z.string().optional(),
  archived: z.boolean().optional(),
  target: z.string().nullable().optional(),
  stages: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      status: z.string(),
      due: z.string().nullable().optional(),
    }),
  ),
});
const SearchCursor = z.object({ windowEnd: z.string() });

/** What a delivery will post, fixed before its first part is sent. */
export interface Frozen {
  parts: Message[];
  itemKeys: string[];
  cursor: { json: string; at: string } | null;
  skippedSaid: number;
  /** A feed's tenders, for "and N more". */
  listed?: ListedTender[];
}

export type Built =
  | {
      kind: 'post';
      frozen: Frozen;
      /** A line kept with each of `frozen.itemKeys` (by index): what "and N more" lists. */
      listings?: (string | null)[];
    }
  | {
      kind: 'empty';
      cursor: Frozen['cursor'];
      /** For "Send now": what the post would have said, shown to the presser alone (nothing is posted). */
      said?: Message;
    };

/**
 * At most this many new tenders are read for one feed post, all listed behind its button; when
 * more were published the window is not moved, so the next post continues with the rest.
 */
export const FEED_READ_LIMIT = 5000;
/** Tenders looked up at once among those the subscription already posted. */
const DELIVERED_BATCH = 100;
const DAY_MS = 86_400_000;

export interface BuildInput {
  client: ProcurementClient;
  /**
   * Whose key `client` holds: `key` tells readers apart (reads are shared only between deliveries
   * read with the same key), `name` says it in a post (“this workspace’s key”, “<@U1>’s own key”).
   */
  reader: { key: string; name: Mrkdwn };
  subscription: Subscription;
  delivery: Delivery;
  now: Date;
  /** Items another delivery already took (rebuilt without them). */
  exclude: ReadonlySet<string>;
  /**
   * Reads shared by the deliveries of one pass (many channels following one bid read it once).
   * Keyed by workspace and what is read.
   */
  shared?: Map<string, Promise<unknown>>;
  /** Of these items, those the subscription already posted (skipped when reading a feed). */
  delivered?: (itemKeys: string[]) => Promise<Set<string>>;
  /** New tenders one feed post reads at most (FEED_READ_LIMIT). */
  feedReadLimit?: number;
  /** pipeline id → `BID-7`, naming bids as their cards do (given now where new); else by name alone. */
  bidReferences?: (pipelineIds: string[]) => Promise<Map<string, string>>;
}

/** Builds what a delivery posts, from a fresh read of the service. */
export async function buildDelivery(input: BuildInput): Promise<Built> {
  const { subscription, delivery, now } = input;
  const notes: PostNotes = {
    lateFor:
      !delivery.manual && now.getTime() - delivery.dueAt.getTime() > LATE_AFTER_MS
        ? formatLocal(delivery.dueAt, subscription.timeZone)
        : null,
    skipped: subscription.skippedCount,
  };
  switch (subscription.kind) {
    case 'pipeline':
      return pipelineSummary(input, notes);
    case 'search':
      return searchFeed(input, notes);
    case 'deadlines':
      return deadlineReminders(input, notes);
  }
}

// ---------------------------------------------------------------------------------------------
// Pipeline summaries

async function pipelineSummary(input: BuildInput, notes: PostNotes): Promise<Built> {
  const { client, subscription, now } = input;
  const { p } = PipelineTarget.parse(JSON.parse(subscription.target));
  let pipeline: Pipeline;
  try {
    const key = `${subscription.teamId}|${input.reader.key}|pipeline|${p}`;
    let read = input.shared?.get(key) as Promise<Pipeline> | undefined;
    if (!read) {
      read = client.pipelines.get(p);
      input.shared?.set(key, read);
    }
    pipeline = await read;
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
    const named = (await input.bidReferences?.([p]))?.get(p);
    const text = mrkdwn`The bid ${named ? code(named) : code(p, 300)} can no longer be seen with ${input.reader.name} (deleted, or no longer shared with the key’s creator). \`/tender subscriptions\` here can unsubscribe.`;
    return {
      kind: 'post',
      frozen: {
        parts: [{ text, blocks: postHead(text, notes) }],
        itemKeys: [],
        cursor: null,
        skippedSaid: notes.skipped,
      },
    };
  }
  const previous = subscription.cursor ? PipelineCursor.safeParse(JSON.parse(subscription.cursor)) : null;
  const before = previous?.success ? previous.data : null;
  const today = localDay(now, subscription.timeZone);
  const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);
  const done = stages.filter((stage) => stage.status === 'completed').length;

  const changes: Mrkdwn[] = [];
  if (before) {
    if (before.name !== undefined && before.name !== pipeline.name)
      changes.push(mrkdwn`Renamed from ${safeText(before.name, 200)} to *${safeText(pipeline.name, 200)}*`);
    if (before.archived !== undefined && before.archived !== pipeline.archived)
      changes.push(pipeline.archived ? mrkdwn`*Archived*` : mrkdwn`*Restored* from the archive`);
    if (before.status !== pipeline.status)
      changes.push(
        mrkdwn`Bid status: ${labelOf(STATUS_LABELS, before.status)} → *${plain(STATUS_LABELS[pipeline.status])}*`,
      );
    if (before.target !== undefined && before.target !== pipeline.targetSubmissionDate)
      changes.push(
        mrkdwn`Target date: ${dayOrNone(before.target)} → *${dayOrNone(pipeline.targetSubmissionDate)}*`,
      );
    const old = new Map(before.stages.map((stage) => [stage.id, stage]));
    for (const stage of stages) {
      const was = old.get(stage.id);
      if (!was) {
        changes.push(mrkdwn`${safeText(stage.name, 200)}: new stage, ${plain(STAGE_LABELS[stage.status])}`);
        continue;
      }
      if (was.name !== stage.name)
        changes.push(mrkdwn`${safeText(was.name, 200)}: renamed to *${safeText(stage.name, 200)}*`);
      if (was.status !== stage.status)
        changes.push(
          mrkdwn`${safeText(stage.name, 200)}: ${labelOf(STAGE_LABELS, was.status)} → *${plain(STAGE_LABELS[stage.status])}*`,
        );
      if (was.due !== undefined && was.due !== stage.dueDate)
        changes.push(
          mrkdwn`${safeText(stage.name, 200)}: due date ${dayOrNone(was.due)} → *${dayOrNone(stage.dueDate)}*`,
        );
    }
    const now_ = new Set(stages.map((stage) => stage.id));
    for (const stage of before.stages)
      if (!now_.has(stage.id)) changes.push(mrkdwn`${safeText(stage.name, 200)}: removed`);
  }
  const blocked = stages.filter((stage) => stage.status === 'blocked');
  const open = stages.filter((stage) => stage.status !== 'completed' && stage.dueDate);
  const overdue = open.filter((stage) => (stage.dueDate as string) < today);
  const dueSoon = open.filter((stage) => {
    const days = differenceInCalendarDays(
      new Date(`${stage.dueDate}T00:00:00Z`),
      new Date(`${today}T00:00:00Z`),
      IN_UTC,
    );
    return days >= 0 && days <= 3;
  });

  // The tender's closing, the bid's real deadline: said while ahead, and a target date after it flagged.
  const closing = pipeline.tenderId ? await tenderDeadline(input, pipeline.tenderId) : null;
  const closes = pipeline.archived ? null : tenderClosesWhen(closing, now);
  const heading = mrkdwn`:bar_chart: *${safeText(pipeline.name, 200)}* · ${plain(STATUS_LABELS[pipeline.status])}${pipeline.archived ? mrkdwn` (archived)` : mrkdwn``}`;
  const head: Block[] = [
    ...postHead(heading, notes),
    section(
      mrkdwn`*Target date* ${plain(countdownLocal(pipeline.targetSubmissionDate, today, pipeline))}${pipeline.archived ? mrkdwn`` : afterClosingNote(pipeline.targetSubmissionDate, cardClosingDay(closing, pipeline.status, now))}${closes ? mrkdwn`\n*Tender closes* ${closes}` : mrkdwn``}\n*Progress* ${plain(progressBar(done, stages.length))}`,
    ),
  ];
  const groups: Block[][] = [];
  const list = (title: string, lines: Mrkdwn[], empty: string) => {
    const items = lines.length > 0 ? lines.map((line) => mrkdwn`• ${line}`) : [plain(empty)];
    // Long lists become several sections (3,000 characters each), never cut.
    for (const chunk of chunkLines([mrkdwn`*${plain(title)}*`, ...items])) groups.push([section(chunk)]);
  };
  list(
    'Changes since the last summary',
    changes,
    before ? 'Nothing changed.' : 'This is the first summary: changes are counted from here.',
  );
  if (blocked.length + overdue.length + dueSoon.length === 0) {
    // Three empty sections say less than one line.
    groups.push([section(mrkdwn`Nothing is blocked, overdue or due in the next 3 days.`)]);
  } else {
    list('Blocked', blocked.map(stageLine), 'Nothing is blocked.');
    list(
      'Overdue',
      overdue.map(
        (stage) => mrkdwn`${stageLine(stage)} · was due ${plain(formatDay(stage.dueDate as string))}`,
      ),
      'Nothing is overdue.',
    );
    list(
      'Due in the next 3 days',
      dueSoon.map((stage) => mrkdwn`${stageLine(stage)} · due ${plain(formatDay(stage.dueDate as string))}`),
      'Nothing is due in the next 3 days.',
    );
  }
  // The bid's card one click away, named as the card names it (no id to copy).
  const post = encodeIfFits('pipeline', { p: pipeline.id });
  groups.push([
    post
      ? ({
          type: 'section',
          text: {
            type: 'mrkdwn',
            // An archived bid's card has no menus: it is read only until restored.
            text: pipeline.archived
              ? mrkdwn`The card of *${safeText(pipeline.name, 200)}* (archived, so read only), in this channel:`
              : mrkdwn`The card of *${safeText(pipeline.name, 200)}*, with its menus, in this channel:`,
          },
          accessory: button('Post its card here', PipelineIds.post, post),
        } satisfies Block)
      : contextLine(
          mrkdwn`${code(`/tender pipeline ${(await input.bidReferences?.([pipeline.id]))?.get(pipeline.id) ?? clip(pipeline.id, 200)}`)} shows the bid’s card.`,
        ),
  ]);
  const cursor = {
    json: JSON.stringify({
      status: pipeline.status,
      name: pipeline.name,
      archived: pipeline.archived,
      target: pipeline.targetSubmissionDate,
      stages: stages.map((stage) => ({
        id: stage.id,
        name: stage.name,
        status: stage.status,
        // Notes are not kept, not even as a digest (a short note's would give it away).
        due: stage.dueDate,
      })),
    } satisfies z.infer<typeof PipelineCursor>),
    at: now.toISOString(),
  };
  return {
    kind: 'post',
    frozen: {
      parts: splitIntoParts(mrkdwn`Summary of ${plain(pipeline.name)}`, head, groups),
      itemKeys: [],
      cursor,
      skippedSaid: notes.skipped,
    },
  };
}

/** A day as the summary says it, or `none`. */
function dayOrNone(day: string | null): Mrkdwn {
  return day ? plain(formatDay(day)) : mrkdwn`none`;
}

/** The deadline of a bid's tender (shared between the pass's deliveries), or null when unread. */
async function tenderDeadline(input: BuildInput, tenderId: string): Promise<string | null> {
  const key = `${input.subscription.teamId}|${input.reader.key}|tender|${tenderId}`;
  let read = input.shared?.get(key) as Promise<string | null> | undefined;
  if (!read) {
    read = input.client.tenders.get(tenderId).then(
      (tender) => tender.deadline,
      () => null,
    );
    input.shared?.set(key, read);
  }
  return read;
}

function stageLine(stage: Stage): Mrkdwn {
  return mrkdwn`${safeText(stage.name, 200)} (${plain(STAGE_LABELS[stage.status])})`;
}

function labelOf(labels: Record<string, string>, value: string): Mrkdwn {
  return plain(labels[value] ?? value);
}

/** "1 Dec 2026 · in 9 days" counted from the subscriber's own today. */
function countdownLocal(
  day: string | null,
  today: string,
  bid?: { status: Pipeline['status']; archived?: boolean },
): string {
  return countdown(day, new Date(`${today}T12:00:00Z`), bid);
}

/** Lines in sections of at most 2,900 characters, a line never split between two. */
function chunkLines(lines: Mrkdwn[]): Mrkdwn[] {
  const chunks: Mrkdwn[] = [];
  let current: Mrkdwn[] = [];
  let length = 0;
  for (const line of lines) {
    if (current.length > 0 && length + line.length + 1 > 2900) {
      chunks.push(joinMrkdwn(current, mrkdwn`\n`));
      current = [];
      length = 0;
    }
    const kept = current.length === 0 ? clipMrkdwn(line, 2900) : line;
    length += (current.length > 0 ? 1 : 0) + kept.length;
    current.push(kept);
  }
  if (current.length > 0) chunks.push(joinMrkdwn(current, mrkdwn`\n`));
  return chunks;
}

// ---------------------------------------------------------------------------------------------
// New-tender feeds

/**
 * Where a feed's next post starts counting new tenders: the end of the last window posted (never
 * lost when periods are skipped), else when it was subscribed.
 */
export function feedWindowStart(subscription: Subscription): Date {
  const previous = subscription.cursor ? SearchCursor.safeParse(JSON.parse(subscription.cursor)) : null;
  return previous?.success ? new Date(previous.data.windowEnd) : subscription.createdAt;
}

async function searchFeed(input: BuildInput, notes: PostNotes): Promise<Built> {
  const { client, subscription, delivery, now, exclude } = input;
  const limit = Math.max(FEED_CARDS, input.feedReadLimit ?? FEED_READ_LIMIT);
  const target = SearchTarget.parse(JSON.parse(subscription.target));
  // Windows overlap by the second the service rounds to, and each tender is posted once per
  // subscription (those it already posted are skipped as they are read).
  const windowStart = feedWindowStart(subscription);
  const fresh: Tender[] = [];
  let continues = false;
  const batch: Tender[] = [];
  const take = async () => {
    const posted = input.delivered
      ? await input.delivered(batch.map((tender) => `tender:${tender.id}`))
      : new Set<string>();
    for (const tender of batch) {
      if (posted.has(`tender:${tender.id}`)) continue;
      if (fresh.length < limit) fresh.push(tender);
      else continues = true;
    }
    batch.length = 0;
  };
  // The rule the service compared the value bounds by (their currency, the rates' date), from its
  // answer, for the heading to say: a feed "over £1,000,000" is read as a search's heading is.
  let valueRule: ValueRule | undefined;
  const pages = everyPage(async (offset) => {
    const page = await client.tenders.search({
      ...target.f,
      ...(target.w ? deadlineWindow(target.w, now) : {}),
      publishedFrom: windowStart.toISOString(),
      publishedTo: now.toISOString(),
      limit: 100,
      offset,
    });
    valueRule ??= page.valueRule;
    return page;
  });
  for await (const tender of pages) {
    if (exclude.has(`tender:${tender.id}`)) continue;
    batch.push(tender);
    if (batch.length >= DELIVERED_BATCH) {
      await take();
      if (continues) break;
    }
  }
  if (!continues) await take();
  // More than one post reads: the window stays where it was, and the next post (skipping what
  // this one posted) continues with the rest.
  const cursor = continues
    ? null
    : { json: JSON.stringify({ windowEnd: now.toISOString() }), at: now.toISOString() };
  const since = formatLocal(windowStart, subscription.timeZone);
  const message = feedMessage({
    description: storedMrkdwn(target.d),
    tenders: fresh.slice(0, FEED_CARDS),
    total: fresh.length,
    continues,
    since,
    deliveryId: delivery.id,
    notes,
    now,
    ...(valueRule ? { valueRule } : {}),
  });
  // Nothing new stays out of the channel; "Send now" shows its presser what it would have said.
  if (fresh.length === 0) return { kind: 'empty', cursor, ...(delivery.manual ? { said: message } : {}) };
  return {
    kind: 'post',
    frozen: {
      parts: [message],
      itemKeys: fresh.map((tender) => `tender:${tender.id}`),
      cursor,
      skippedSaid: notes.skipped,
    },
    // Every tender after the cards is listed behind "List them" (kept with its item, not in the post).
    listings: fresh.map((tender, index) =>
      index < FEED_CARDS
        ? null
        : JSON.stringify({
            id: tender.id,
            title: tender.title,
            buyer: tender.buyer?.name ?? null,
            deadline: tender.deadline,
          } satisfies ListedTender),
    ),
  };
}

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

async function deadlineReminders(input: BuildInput, notes: PostNotes): Promise<Built> {
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
  const named = [
    ...bids.map((bid) => bid.pipeline.id),
    ...closingGroups.flatMap((group) => group.bids.map((bid) => bid.pipeline.id)),
  ];
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

/** Whose key a subscription's posts are read with, for sharing reads and for saying so. */
export function readerOf(subscription: Subscription, source: KeySource): { key: string; name: Mrkdwn } {
  return source === 'personal'
    ? { key: `person:${subscription.createdBy}`, name: mrkdwn`${mention(subscription.createdBy)}’s own key` }
    : { key: 'workspace', name: mrkdwn`this workspace’s key` };
}
