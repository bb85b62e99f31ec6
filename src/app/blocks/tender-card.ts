import type { Button, KnownBlock } from '@slack/types';
import { formatDistanceStrict } from 'date-fns';
import type { Tender } from '../../contract/schemas.ts';
import { CommentIds, PipelineIds, TenderIds } from '../ids.ts';
import type { CardPlace, CommentEntityType } from '../listeners/button-values.ts';
import { encode, encodeIfFits } from '../state/codec.ts';
import { formatDayOf, formatMoney, formatTimeOf } from './formats.ts';
import { clip, escapeMrkdwn, safeText } from './mrkdwn.ts';

export type Block = KnownBlock;

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
}

const STATUS_LABELS: Record<Tender['status'], string> = {
  planned: 'Planned',
  open: 'Open',
  closed: 'Closed',
  awarded: 'Awarded',
  cancelled: 'Cancelled',
};

/** "closes in 5 days (1 Dec 2026)" or "closed 3 days ago (…)". */
export function formatDeadline(deadline: string | null, now: Date): string {
  if (!deadline) return 'No deadline given';
  const date = new Date(deadline);
  const day = formatDayOf(date);
  const distance = formatDistanceStrict(date, now, { roundingMethod: 'floor' });
  return date.getTime() >= now.getTime()
    ? `closes in ${distance} (${day})`
    : `closed ${distance} ago (${day})`;
}

/** The confirmation Slack shows before a bookmark is removed from a card in a channel. */
const REMOVE_SHARED_BOOKMARK = {
  title: { type: 'plain_text' as const, text: 'Remove the bookmark?' },
  text: {
    type: 'mrkdwn' as const,
    text: 'This workspace shares one bookmark list, so the tender leaves it for everyone.',
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
  const fields = [
    `*Buyer*\n${tender.buyer ? safeText(tender.buyer.name, 300) : 'Not stated'}`,
    `*Value*\n${formatMoney(tender.value)}`,
    `*Deadline*\n${formatDeadline(tender.deadline, options.now)}`,
    `*Status*\n${STATUS_LABELS[tender.status]}`,
    `*Region*\n${tender.region ? safeText(tender.region, 200) : 'Not stated'}`,
    `*CPV*\n${cpv ? safeText(cpv, 600) : 'None given'}`,
  ];
  // The click must redraw the message it sits in: the value says which tender, and where it is shown.
  const value = encode('bookmark', {
    t: tender.id,
    c: options.context,
    ...(options.sharedBy ? { s: options.sharedBy } : {}),
  });
  const buttons: Button[] = [
    options.bookmarked
      ? options.shared
        ? // On a card in a channel the list is everyone's: removing it is asked twice, there.
          { ...button('Remove bookmark', TenderIds.removeBookmark, value), confirm: REMOVE_SHARED_BOOKMARK }
        : button('Remove bookmark', TenderIds.removeBookmark, value)
      : button('Bookmark', TenderIds.bookmark, value, 'primary'),
  ];
  if (!options.shared && options.canShare !== false)
    buttons.push(button('Share in channel', TenderIds.share, tender.id));
  const comment = commentButton('tender', tender.id);
  if (comment) buttons.push(comment);
  const startBid = encodeIfFits('startBid', { t: tender.id });
  if (startBid) buttons.push(button('Start a bid', PipelineIds.startBid, startBid));
  if (tender.url)
    buttons.push({
      ...button('Open original', TenderIds.openOriginal, tender.id),
      url: clip(tender.url, 3000),
    });
  return [
    { type: 'section', text: { type: 'mrkdwn', text: `*${safeText(tender.title, 2900)}*` } },
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text })) },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          // The id first is the one `/tender show` takes; the source's own reference after it when it differs.
          text: `\`${safeText(tender.id, 300)}\` · ${safeText(tender.source.name, 200)}${tender.source.id && tender.source.id !== tender.id ? ` · ${safeText(tender.source.id, 200)}` : ''}`,
        },
      ],
    },
    { type: 'actions', block_id: `tender:${clip(tender.id, 240)}`, elements: buttons },
  ];
}

/** The whole tender: the card with its full description and awarded suppliers. */
export function tenderDetail(tender: Tender, options: CardOptions): Block[] {
  const [title, cardFacts, source, actions] = tenderCard(tender, options) as [Block, Block, Block, Block];
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
                  text: `*Deadline*\n${formatDeadline(tender.deadline, options.now).replace(/\)$/, `, ${formatTimeOf(deadline)} UTC)`)}`,
                }
              : field,
          ),
        }
      : cardFacts;
  const blocks: Block[] = [title, facts];
  // What the card leaves out: when it was published and awarded.
  const dates = [`*Published*\n${formatDayOf(new Date(tender.publishedAt))}`];
  if (tender.awardedAt) dates.push(`*Awarded*\n${formatDayOf(new Date(tender.awardedAt))}`);
  blocks.push({ type: 'section', fields: dates.map((text) => ({ type: 'mrkdwn' as const, text })) });
  if (tender.description)
    // Line breaks are kept: mrkdwn shows them as written.
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: safeText(tender.description, 3000) } });
  const original = linkable(tender.url);
  if (original)
    blocks.push(
      contextLine(
        `The original notice, on ${safeText(tender.source.name, 100)}: <${original}|${safeText(clip(original, 120), 200)}>`,
      ),
    );
  if (tender.suppliers.length > 0) {
    const names = tender.suppliers.map((supplier) => escapeMrkdwn(supplier.name)).join(', ');
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(`*Awarded to* ${names}`, 3000) } });
  }
  if (tender.frameworkId) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `Call-off of framework \`${safeText(tender.frameworkId, 300)}\`` }],
    });
  }
  blocks.push(source, actions);
  return blocks;
}

/** An address safe inside mrkdwn's `<url|text>`: http(s), no spaces or the link's own delimiters. */
function linkable(url: string | null): string | null {
  if (!url || url.length > 2000 || !/^https?:\/\/[^\s<>|]+$/i.test(url)) return null;
  return url.replace(/&/g, '&amp;');
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

export function section(text: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: clip(text, 3000) } };
}

export function contextLine(text: string): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: clip(text, 3000) }] };
}
