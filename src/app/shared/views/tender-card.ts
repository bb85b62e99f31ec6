import type { Tender } from '../../../contract/schemas.ts';
import { CommentIds, PipelineIds, TenderIds } from '../ids.ts';
import type { CardPlace, CommentEntityType } from '../values/button-values.ts';
import { encode, encodeIfFits } from '../values/codec.ts';
import { counted, formatDayOf, formatMomentUtc, formatMoney } from './formats.ts';
import {
  clip,
  clipMrkdwn,
  code,
  joinMrkdwn,
  link,
  localMoment,
  type Mrkdwn,
  mrkdwn,
  safeText,
  text,
  webUrl,
} from './mrkdwn.ts';
import type { Block, Button } from './safe-blocks.ts';

export type { Block };

export interface CardOptions {
  bookmarked: boolean;
  /** A card posted for everyone: it has no "Share in channel". */
  shared: boolean;
  now: Date;
  /** Carried in the card's buttons so that a click can redraw the message it sits in. */
  context: CardPlace;
  /** Who shared the card (a shared card): carried in its buttons, so a redraw keeps the line. */
  sharedBy?: string;
  /** False where there is no channel to share into (a direct message with Tenderbot). */
  canShare?: boolean;
  /** A guest's own card: only what a guest may use (Comment, to read; Open original). */
  readOnly?: boolean;
}

const STATUS_LABELS: Record<Tender['status'], string> = {
  planned: 'Planned',
  open: 'Open',
  closed: 'Closed',
  awarded: 'Awarded',
  cancelled: 'Cancelled',
};

/**
 * "closes in 4 days (2 Dec 2026, 12:00 UTC)", "closes in 30 hours (…)", "closes in 5 hours (…)",
 * "closed 3 hours ago (…)", and for a deadline given as a day "closes tomorrow (3 Dec 2026)". Days
 * are calendar days (UTC), as a bid's target date counts them, so a tender and its bid closing the
 * same day say the same count; in days under two months (a bid lead plans in days; "1 month" hides
 * whether it is 31 or 59), in hours or minutes on the day itself and for a time within two days
 * (each reader sees the time in their own zone, whose calendar is not UTC's), in months or years
 * beyond. The time is given when the notice sets one (not midnight), or always
 * with `time: 'always'` (the full view). Every card of every answer says one, so the common case
 * is arithmetic on UTC day numbers and durations (held to the date-fns reading it replaced by the
 * formats test). For plain text (a form's hint,
 * a Work Object's field); mrkdwn shows the moment in each reader's own time (`deadlineMrkdwn`).
 */
export function formatDeadline(deadline: string | null, now: Date, options: DeadlineOptions = {}): string {
  const { words, date } = deadlineParts(deadline, now);
  return date ? `${words} (${deadlineUtc(date, options)})` : words;
}

/** The full view gives the time always, a card when the notice sets one. */
export interface DeadlineOptions {
  time?: 'always' | 'when-set';
}

/**
 * `formatDeadline` in mrkdwn, its moment in each reader's own zone and clock when it has a time
 * ("closes in 4 days (Dec 2, 2026 at 1:00 PM your time)" in London's summer), the UTC words where
 * Slack draws no date token; a deadline given as a day stays that day.
 */
export function deadlineMrkdwn(deadline: string | null, now: Date, options: DeadlineOptions = {}): Mrkdwn {
  const { words, date } = deadlineParts(deadline, now);
  return date ? mrkdwn`${text(words)} (${deadlineMoment(date, options)})` : text(words);
}

/**
 * When a deadline falls, in mrkdwn: a time the notice sets in each reader's own zone and clock, with
 * its UTC words as the fallback; a day (midnight UTC) as that day's UTC words, the full view's time
 * included (as the reader's time it would be the evening before in New York).
 */
export function deadlineMoment(date: Date, options: DeadlineOptions = {}): Mrkdwn {
  const utc = deadlineUtc(date, options);
  return setsATime(date) ? localMoment(date, 'deadline', utc) : text(utc);
}

/** `19 Dec 2026, 12:00 UTC`, or `19 Dec 2026` for a deadline given as a day unless the time is asked for. */
export function deadlineUtc(date: Date, options: DeadlineOptions = {}): string {
  return setsATime(date) || options.time === 'always' ? formatMomentUtc(date) : formatDayOf(date);
}

/** A deadline at midnight UTC is a day the notice gives without a time. */
export function setsATime(date: Date): boolean {
  return date.getTime() % DAY_MS !== 0;
}

/** A deadline's words ("closes in 4 days") and its moment. */
function deadlineParts(deadline: string | null, now: Date): { words: string; date: Date | null } {
  if (!deadline) return { words: 'No deadline given', date: null };
  const time = Date.parse(deadline);
  if (Number.isNaN(time)) return { words: 'an unknown deadline', date: null };
  const date = new Date(time);
  const timed = setsATime(date);
  const nowTime = now.getTime();
  const ahead = time >= nowTime;
  const days = Math.floor(time / DAY_MS) - Math.floor(nowTime / DAY_MS);
  const words = (phrase: string) => ({ words: phrase, date });
  // A time within two days is counted in hours, the same for every reader: "tomorrow" is a
  // calendar's word, and the reader's calendar (their time zone) is not the card's.
  const apart = Math.abs(time - nowTime);
  if (timed && apart < 2 * DAY_MS && apart >= DAY_MS) {
    const hours = distanceWords(apart, 'hour');
    return words(ahead ? `closes in ${hours}` : `closed ${hours} ago`);
  }
  if (days === 0 || (timed && apart < DAY_MS))
    return words(ahead ? `closes in ${distanceWords(apart)}` : `closed ${distanceWords(apart)} ago`);
  if (days === 1 && ahead) return words('closes tomorrow');
  if (days === -1 && !ahead) return words('closed yesterday');
  const distance =
    (ahead ? time : nowTime) < twoMonthsAfter(ahead ? nowTime : time)
      ? counted(Math.abs(days), 'day')
      : distanceWords(apart);
  return words(ahead ? `closes in ${distance}` : `closed ${distance} ago`);
}

const DAY_MS = 86_400_000;

/**
 * `apart` milliseconds in words, as date-fns' formatDistanceStrict says them in UTC rounded down
 * ("40 minutes", "5 hours", "3 months", "1 year"; a month is 30 days, a year 365), by its own
 * arithmetic: every card says one, and the call cost a card more than the rest of its deadline
 * (the formats test holds the two to the same words).
 */
function distanceWords(apart: number, unit?: 'hour'): string {
  const minutes = apart / 60_000;
  if (unit === 'hour') return counted(Math.floor(minutes / 60), 'hour');
  if (minutes < 1) return counted(Math.floor(apart / 1000), 'second');
  if (minutes < 60) return counted(Math.floor(minutes), 'minute');
  if (minutes < 1440) return counted(Math.floor(minutes / 60), 'hour');
  if (minutes < 43_200) return counted(Math.floor(minutes / 1440), 'day');
  if (minutes < 525_600) {
    const months = Math.floor(minutes / 43_200);
    return months === 12 ? '1 year' : counted(months, 'month');
  }
  return counted(Math.floor(minutes / 525_600), 'year');
}

/**
 * The same time of day two calendar months later (UTC), on the month's last day when it has no such
 * day (31 Dec → 28 Feb), as date-fns' addMonths counts them.
 */
function twoMonthsAfter(time: number): number {
  const date = new Date(time);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const day = date.getUTCDate();
  // Day 0 of the month after is the last day of the month two ahead.
  const lastDay = new Date(utcDay(year, month + 3, 0)).getUTCDate();
  return utcDay(year, month + 2, Math.min(day, lastDay)) + (time - utcDay(year, month, day));
}

/** Midnight UTC of a day (Date.UTC would read the years 0 to 99 as 1900 to 1999). */
function utcDay(year: number, month: number, day: number): number {
  return new Date(0).setUTCFullYear(year, month, day);
}

/** The confirmation Slack shows before a bookmark is removed from a card in a channel. */
const REMOVE_SHARED_BOOKMARK = {
  title: { type: 'plain_text' as const, text: 'Remove the bookmark?' },
  text: {
    type: 'mrkdwn' as const,
    text: mrkdwn`This workspace shares one bookmark list, so the tender leaves it for everyone.`,
  },
  confirm: { type: 'plain_text' as const, text: 'Remove' },
  deny: { type: 'plain_text' as const, text: 'Keep it' },
  style: 'danger' as const,
};

/** One tender as a card: title, facts, source, and its buttons. */
export function tenderCard(tender: Tender, options: CardOptions): Block[] {
  const cpv = tender.cpvCodes
    .slice(0, 3)
    .map((code) => `${code.code}${code.description ? ` ${code.description}` : ''}`)
    .join(', ');
  const fields: Mrkdwn[] = [
    mrkdwn`*Buyer*\n${tender.buyer ? safeText(tender.buyer.name, 300) : mrkdwn`Not stated`}`,
    mrkdwn`*Value*\n${text(formatMoney(tender.value))}`,
    mrkdwn`*Deadline*\n${deadlineMrkdwn(tender.deadline, options.now)}`,
    mrkdwn`*Status*\n${text(STATUS_LABELS[tender.status])}`,
    mrkdwn`*Region*\n${tender.region ? safeText(tender.region, 200) : mrkdwn`Not stated`}`,
    mrkdwn`*CPV*\n${cpv ? safeText(cpv, 600) : mrkdwn`None given`}`,
  ];
  // The click must redraw the message it sits in: the value says which tender, and where it is shown.
  const value = encode('bookmark', {
    t: tender.id,
    c: options.context,
    ...(options.sharedBy ? { s: options.sharedBy } : {}),
  });
  const writes: Button[] = [
    options.bookmarked
      ? options.shared
        ? // On a card in a channel the list is everyone's: removing it is asked twice, there.
          { ...button('Remove bookmark', TenderIds.removeBookmark, value), confirm: REMOVE_SHARED_BOOKMARK }
        : button('Remove bookmark', TenderIds.removeBookmark, value)
      : button('Bookmark', TenderIds.bookmark, value, 'primary'),
  ];
  if (!options.shared && options.canShare !== false)
    writes.push(button('Share in channel', TenderIds.share, tender.id));
  // A guest is refused every write: the card offers them none.
  const buttons: Button[] = options.readOnly ? [] : writes;
  const comment = commentButton('tender', tender.id);
  if (comment) buttons.push(comment);
  const startBid = options.readOnly ? null : encodeIfFits('startBid', { t: tender.id });
  if (startBid) buttons.push(button('Start a bid', PipelineIds.startBid, startBid));
  // Only an address a browser opens: a notice's URL is the publisher's text.
  const original = webUrl(tender.url);
  if (original)
    buttons.push({ ...button('Open original', TenderIds.openOriginal, tender.id), url: original });
  return [
    { type: 'section', text: { type: 'mrkdwn', text: mrkdwn`*${safeText(tender.title, 2900)}*` } },
    { type: 'section', fields: fields.map((field) => ({ type: 'mrkdwn', text: field })) },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          // The id first is the one `/tender show` takes; the source's own reference after it when it differs.
          text: mrkdwn`${code(tender.id, 300)} · ${safeText(tender.source.name, 200)}${tender.source.id && tender.source.id !== tender.id ? mrkdwn` · ${safeText(tender.source.id, 200)}` : mrkdwn``}`,
        },
      ],
    },
    // Slack refuses an actions block without elements.
    ...(buttons.length > 0
      ? [{ type: 'actions' as const, block_id: `tender:${clip(tender.id, 240)}`, elements: buttons }]
      : []),
  ];
}

/** The whole tender: the card with its full description and awarded suppliers. */
export function tenderDetail(tender: Tender, options: CardOptions): Block[] {
  const [title, cardFacts, source, ...actions] = tenderCard(tender, options) as [
    Block,
    Block,
    Block,
    ...Block[],
  ];
  // The full view gives the deadline to the minute, with its zone, in the card's own field.
  const deadline = tender.deadline ? new Date(tender.deadline) : null;
  const facts =
    deadline && cardFacts.type === 'section' && cardFacts.fields
      ? {
          ...cardFacts,
          fields: cardFacts.fields.map((field) =>
            field.text.startsWith('*Deadline*')
              ? {
                  ...field,
                  text: mrkdwn`*Deadline*\n${deadlineMrkdwn(tender.deadline, options.now, { time: 'always' })}`,
                }
              : field,
          ),
        }
      : cardFacts;
  const blocks: Block[] = [title, facts];
  // What the card leaves out: when it was published and awarded.
  const dates = [mrkdwn`*Published*\n${text(formatDayOf(new Date(tender.publishedAt)))}`];
  if (tender.awardedAt) dates.push(mrkdwn`*Awarded*\n${text(formatDayOf(new Date(tender.awardedAt)))}`);
  blocks.push({ type: 'section', fields: dates.map((field) => ({ type: 'mrkdwn' as const, text: field })) });
  if (tender.description)
    // Line breaks are kept: mrkdwn shows them as written.
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: safeText(tender.description, 3000) } });
  const original = link(tender.url, safeText(clip(tender.url ?? '', 120), 200));
  if (original)
    blocks.push(
      contextLine(mrkdwn`The original notice, on ${safeText(tender.source.name, 100)}: ${original}`),
    );
  if (tender.suppliers.length > 0) {
    const names = joinMrkdwn(
      tender.suppliers.map((supplier) => text(supplier.name)),
      mrkdwn`, `,
    );
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: clipMrkdwn(mrkdwn`*Awarded to* ${names}`, 3000) },
    });
  }
  if (tender.frameworkId) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: mrkdwn`Call-off of framework ${code(tender.frameworkId, 300)}` }],
    });
  }
  blocks.push(source, ...actions);
  return blocks;
}

export function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Button {
  return {
    type: 'button',
    text: { type: 'plain_text', text: clip(text, 75), emoji: true },
    action_id: actionId,
    value: clip(value, 2000),
    ...(style ? { style } : {}),
  };
}

/** "Comment" on a tender, buyer, supplier or framework: opens the comment modal for it. */
export function commentButton(entity: CommentEntityType, id: string): Button | null {
  const value = encodeIfFits('comment', { e: entity, id });
  return value ? button('Comment', CommentIds.open, value) : null;
}

export function section(body: Mrkdwn): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: clipMrkdwn(body, 3000) } };
}

export function contextLine(line: Mrkdwn): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: clipMrkdwn(line, 3000) }] };
}
