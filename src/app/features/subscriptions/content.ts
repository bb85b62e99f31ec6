/*
 * What a channel post says: a bid's summary and a search's new tenders here, deadline reminders in
 * deadline-reminders.ts, each built to the contract of post-contract.ts (BuildInput → Built).
 */
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { z } from 'zod';
import { everyPage } from '../../../client/pagination.ts';
import type { Pipeline, Stage, Tender, ValueRule } from '../../../contract/schemas.ts';
import { IN_UTC } from '../../../shared/utc.ts';
import type { KeySource } from '../../adapters/workspace-clients.ts';
import { deadlineWindow } from '../../shared/commands/parse-command.ts';
import { PipelineIds } from '../../shared/ids.ts';
import { SearchFiltersValue } from '../../shared/values/button-values.ts';
import { encodeIfFits } from '../../shared/values/codec.ts';
import {
  formatDay,
  PAST_SUBMISSION,
  progressBar,
  STAGE_LABELS,
  STATUS_LABELS,
} from '../../shared/views/bid-parts.ts';
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
import { type Block, button, contextLine, section } from '../../shared/views/tender-card.ts';
import type { Subscription } from '../../storage/subscription-store.ts';
import { afterClosingNote, cardClosingDay, dueOf, tenderClosesWhen } from '../bids/index.ts';
import { deadlineReminders } from './deadline-reminders.ts';
import { newTendersPhrase } from './feed-words.ts';
import { type BuildInput, type Built, countdownLocal, tenderDeadline } from './post-contract.ts';
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
export { DeadlinesTarget } from './deadline-reminders.ts';
export type { BuildInput, Built, Frozen } from './post-contract.ts';
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

/**
 * At most this many new tenders are read for one feed post, all listed behind its button; when
 * more were published the window is not moved, so the next post continues with the rest.
 */
export const FEED_READ_LIMIT = 5000;
/** Tenders looked up at once among those the subscription already posted. */
const DELIVERED_BATCH = 100;

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
    // Three empty sections say less than one line. Of stages: the target date above may be near.
    groups.push([section(mrkdwn`No stage is blocked, overdue or due in the next 3 days.`)]);
  } else {
    list('Blocked', blocked.map(stageLine), 'No stage is blocked.');
    list(
      'Overdue',
      overdue.map(
        (stage) => mrkdwn`${stageLine(stage)} · was due ${plain(formatDay(stage.dueDate as string))}`,
      ),
      'No stage is overdue.',
    );
    list(
      'Due in the next 3 days',
      dueSoon.map((stage) => mrkdwn`${stageLine(stage)} · due ${plain(formatDay(stage.dueDate as string))}`),
      'No stage is due in the next 3 days.',
    );
  }
  // Stages planned past the bid's target or the tender's closing, as its card flags them: said
  // only when there are some, since such a plan cannot be met.
  const settled = pipeline.archived || PAST_SUBMISSION.includes(pipeline.status);
  const closingDay = cardClosingDay(closing, pipeline.status, now);
  const targetDay = settled ? null : pipeline.targetSubmissionDate;
  // Not those already under Overdue (counted there by the subscription's own day).
  const late = settled
    ? []
    : open.filter(
        (stage) =>
          !overdue.includes(stage) &&
          ((closingDay !== null && (stage.dueDate as string) > closingDay) ||
            (targetDay !== null && (stage.dueDate as string) > targetDay)),
      );
  if (late.length > 0)
    list(
      'Due after the target or the closing',
      late.map(
        (stage) =>
          mrkdwn`${stageLine(stage)} · ${dueOf(stage, now, closingDay, targetDay, settled)?.text ?? mrkdwn``}`,
      ),
      '',
    );
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

function stageLine(stage: Stage): Mrkdwn {
  return mrkdwn`${safeText(stage.name, 200)} (${plain(STAGE_LABELS[stage.status])})`;
}

function labelOf(labels: Record<string, string>, value: string): Mrkdwn {
  return plain(labels[value] ?? value);
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
    heading: newTendersPhrase(storedMrkdwn(target.d), target.f, fresh.length, Boolean(target.ss)),
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

/** Whose key a subscription's posts are read with, for sharing reads and for saying so. */
export function readerOf(subscription: Subscription, source: KeySource): { key: string; name: Mrkdwn } {
  return source === 'personal'
    ? { key: `person:${subscription.createdBy}`, name: mrkdwn`${mention(subscription.createdBy)}’s own key` }
    : { key: 'workspace', name: mrkdwn`this workspace’s key` };
}
