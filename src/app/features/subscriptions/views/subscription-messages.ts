import type { Tender, ValueRule } from '../../../../contract/schemas.ts';
import { SubscriptionIds } from '../../../shared/ids.ts';
import { valueRuleSentence } from '../../../shared/views/describe-search.ts';
import { formatMoney } from '../../../shared/views/formats.ts';
import type { Message } from '../../../shared/views/messages.ts';
import {
  channelLink,
  clip,
  code,
  joinMrkdwn,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
  webUrl,
} from '../../../shared/views/mrkdwn.ts';
import { plainOf } from '../../../shared/views/plain-sentence.ts';
import type { Button } from '../../../shared/views/safe-blocks.ts';
import {
  type Block,
  button,
  commentButton,
  contextLine,
  deadlineMrkdwn,
  section,
} from '../../../shared/views/tender-card.ts';
import type { ChannelOut } from '../channel-access.ts';

/** Slack refuses messages near 13k characters of blocks; parts stay well under. */
export const PART_JSON_LIMIT = 10_000;
/** Slack's 50 blocks a message, less the part line. */
export const PART_BLOCK_LIMIT = 48;
/** Tenders shown as cards in one feed post; the rest are listed behind a button. */
export const FEED_CARDS = 5;
/** Lines per page of "and N more". */
export const MORE_PAGE = 20;
/** Subscriptions drawn in the list: four blocks each, within 50. */
export const LIST_LIMIT = 11;

/** A tender as the "and N more" list keeps it (frozen with the post, so the list needs no service). */
export interface ListedTender {
  id: string;
  title: string;
  buyer: string | null;
  deadline: string | null;
}

/** What a scheduled post says about itself: late, or after skipped periods. */
export interface PostNotes {
  /** The due time, in the subscriber's words (`Mon 23 Nov, 09:00`), when it is posted late. */
  lateFor: string | null;
  skipped: number;
}

function notesLine(notes: PostNotes): Block | null {
  const sentences: Mrkdwn[] = [];
  if (notes.lateFor)
    sentences.push(mrkdwn`Late: this was due ${plain(notes.lateFor)}, while Tenderbot was not running.`);
  if (notes.skipped > 0)
    sentences.push(
      mrkdwn`${notes.skipped} earlier ${notes.skipped === 1 ? mrkdwn`post was` : mrkdwn`posts were`} skipped while Tenderbot was not running (their time had passed); this one covers everything since the last post.`,
    );
  return sentences.length > 0 ? contextLine(mrkdwn`:hourglass: ${joinMrkdwn(sentences, mrkdwn` `)}`) : null;
}

/**
 * Packs a heading and groups of blocks (a group is never cut) into as few messages as Slack takes:
 * each within PART_BLOCK_LIMIT blocks and PART_JSON_LIMIT characters, with "Part 2 of 3" when split.
 */
export function splitIntoParts(text: Mrkdwn, head: Block[], groups: Block[][]): Message[] {
  const parts: Block[][] = [];
  let current: Block[] = [...head];
  let size = JSON.stringify(current).length;
  for (const group of groups) {
    const groupSize = JSON.stringify(group).length + 1;
    if (
      current.length > 0 &&
      (current.length + group.length > PART_BLOCK_LIMIT || size + groupSize > PART_JSON_LIMIT)
    ) {
      parts.push(current);
      current = [];
      size = 2;
    }
    current.push(...group);
    size += groupSize;
  }
  if (current.length > 0 || parts.length === 0) parts.push(current);
  if (parts.length === 1) return [{ text, blocks: parts[0] as Block[] }];
  return parts.map((blocks, index) => ({
    text: mrkdwn`${text} (part ${index + 1} of ${parts.length})`,
    blocks: [...blocks, contextLine(mrkdwn`Part ${index + 1} of ${parts.length}`)],
  }));
}

/** A tender in a feed post: what a bid lead scans for, and buttons that open windows (none redraws the post). */
export function feedCard(tender: Tender, now: Date): Block[] {
  const buttons: Button[] = [];
  const comment = commentButton('tender', tender.id);
  if (comment) buttons.push(comment);
  const original = webUrl(tender.url);
  if (original)
    buttons.push({ ...button('Open original', 'tender/open_original', tender.id), url: original });
  const blocks: Block[] = [
    { type: 'divider' },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: mrkdwn`*${safeText(tender.title, 2900)}*` },
      fields: [
        mrkdwn`*Buyer*\n${tender.buyer ? safeText(tender.buyer.name, 300) : mrkdwn`Not stated`}`,
        mrkdwn`*Value*\n${plain(formatMoney(tender.value))}`,
        mrkdwn`*Deadline*\n${deadlineMrkdwn(tender.deadline, now)}`,
        mrkdwn`*Region*\n${tender.region ? safeText(tender.region, 200) : mrkdwn`Not stated`}`,
      ].map((text) => ({ type: 'mrkdwn' as const, text })),
    },
    contextLine(mrkdwn`${code(tender.id, 300)} · ${safeText(tender.source.name, 200)}`),
  ];
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons });
  return blocks;
}

/** New tenders since the last post: five cards, and "and N more" behind a button when there are more. */
export function feedMessage(args: {
  /** What is new, counted: `3 new tenders for “cleaning”` (newTendersPhrase). */
  heading: Mrkdwn;
  tenders: Tender[];
  total: number;
  /** More were published than one post reads: the next post continues with them. */
  continues?: boolean;
  since: string;
  deliveryId: string;
  notes: PostNotes;
  now: Date;
  /** The rule the service applied to the feed's value bounds (none without bounds): said in the heading. */
  valueRule?: ValueRule;
}): Message {
  const { tenders, total } = args;
  const since = plain(args.since);
  const rule = args.valueRule ? mrkdwn`; ${valueRuleSentence(args.valueRule)}` : mrkdwn``;
  const text = mrkdwn`${args.heading} since ${since}${rule}`;
  const blocks: Block[] = [section(mrkdwn`:mag: *${args.heading}* since ${since}${rule}`)];
  const notes = notesLine(args.notes);
  if (notes) blocks.push(notes);
  if (total === 0) {
    // Said from when it counts (the first post has no last post to count from).
    blocks.push(section(mrkdwn`Nothing new was published since ${since}.`));
    return { text, blocks };
  }
  for (const tender of tenders.slice(0, FEED_CARDS)) blocks.push(...feedCard(tender, args.now));
  const more = total - Math.min(tenders.length, FEED_CARDS);
  if (more > 0) {
    blocks.push({ type: 'divider' });
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: mrkdwn`…and ${plain(more.toLocaleString('en-GB'))} more.` },
      accessory: button('List them', SubscriptionIds.listMore, JSON.stringify({ d: args.deliveryId, o: 0 })),
    });
  }
  if (args.continues)
    blocks.push(
      contextLine(
        mrkdwn`More than ${plain(total.toLocaleString('en-GB'))} new tenders were published: the next post continues with the rest.`,
      ),
    );
  return { text, blocks };
}

/** A tender as one line of a list: title, buyer, deadline and id. */
function listedLine(tender: ListedTender, now: Date): Mrkdwn {
  const deadline = tender.deadline ? deadlineMrkdwn(tender.deadline, now) : mrkdwn`no deadline given`;
  return mrkdwn`• *${safeText(tender.title, 200)}*${tender.buyer ? mrkdwn` · ${safeText(tender.buyer, 100)}` : mrkdwn``} · ${deadline} · ${code(tender.id, 100)}`;
}

/**
 * Under a feed's "nothing new" preview: the newest tenders it matches, all published before its
 * window (so never posted as new), for a taste of what it follows.
 */
export function newestMatchingBlocks(args: {
  tenders: readonly Tender[];
  total: number;
  since: string;
  now: Date;
}): Block[] {
  const { tenders, total } = args;
  if (total === 0 || tenders.length === 0)
    return [
      section(
        mrkdwn`No tender matches it at all yet, so its posts will be the first that do. \`/tender search\` with fewer words or filters shows what is there.`,
      ),
    ];
  const matches = plain(
    `${total.toLocaleString('en-GB')} ${total === 1 ? 'tender matches' : 'tenders match'}`,
  );
  const lines = tenders.map((tender) =>
    listedLine(
      { id: tender.id, title: tender.title, buyer: tender.buyer?.name ?? null, deadline: tender.deadline },
      args.now,
    ),
  );
  return [
    section(
      mrkdwn`*What it follows:* ${matches} it from before ${plain(args.since)}, and it posts only those published after. The newest:\n${joinMrkdwn(lines, mrkdwn`\n`)}`,
    ),
  ];
}

/** One page of "and N more" (`page` starts at `offset` of `total`), to the person who asked. */
export function moreTendersMessage(
  page: readonly ListedTender[],
  offset: number,
  total: number,
  deliveryId: string,
  now: Date,
): Message {
  if (page.length === 0) {
    const text = mrkdwn`That list has no more tenders.`;
    return { text, blocks: [section(text)] };
  }
  const lines = page.map((tender) => listedLine(tender, now));
  const shown = plain(`${offset + 1}–${offset + page.length} of ${total.toLocaleString('en-GB')}`);
  const blocks: Block[] = [section(mrkdwn`*The tenders of that post* · ${shown}`)];
  // Lines grouped under Slack's 3,000 characters a section.
  let chunk: Mrkdwn[] = [];
  let chunkLength = 0;
  for (const line of lines) {
    if (chunk.length > 0 && chunkLength + line.length + 1 > 2900) {
      blocks.push(section(joinMrkdwn(chunk, mrkdwn`\n`)));
      chunk = [];
      chunkLength = 0;
    }
    chunkLength += (chunk.length > 0 ? 1 : 0) + line.length;
    chunk.push(line);
  }
  if (chunk.length > 0) blocks.push(section(joinMrkdwn(chunk, mrkdwn`\n`)));
  blocks.push(contextLine(mrkdwn`\`/tender show &lt;id&gt;\` shows one in full.`));
  const buttons: Button[] = [];
  if (offset > 0)
    buttons.push(
      button(
        'Previous',
        SubscriptionIds.listMorePrevious,
        JSON.stringify({ d: deliveryId, o: Math.max(0, offset - MORE_PAGE) }),
      ),
    );
  if (offset + MORE_PAGE < total)
    buttons.push(
      button('Next', SubscriptionIds.listMore, JSON.stringify({ d: deliveryId, o: offset + MORE_PAGE })),
    );
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons });
  return { text: mrkdwn`Tenders ${shown}`, blocks };
}

/** The heading of a scheduled post and its notes line. */
export function postHead(heading: Mrkdwn, notes: PostNotes): Block[] {
  const blocks = [section(heading)];
  const line = notesLine(notes);
  if (line) blocks.push(line);
  return blocks;
}

/** What the list of a channel's subscriptions shows of each (the view's own shape, not the stored row). */
export interface ListedSubscription {
  id: string;
  createdBy: string;
  /** Why it no longer posts, or null. */
  pausedReason: string | null;
}

/** The channel's subscriptions with "Send now" and "Unsubscribe", to the person who asked. */
export function subscriptionsListMessage(
  items: { subscription: ListedSubscription; what: Mrkdwn; when: string; next: string }[],
  channelId: string,
  /** A guest's list: neither Send now nor Unsubscribe, which would only refuse them. */
  readOnly = false,
  /** Why nothing can be posted in the channel now, if so (said above the list). */
  out: ChannelOut | null = null,
): Message {
  if (items.length === 0) {
    // A guest cannot start one: only what is so is said to them.
    const text = readOnly
      ? mrkdwn`${channelLink(channelId)} has no subscriptions.`
      : mrkdwn`${channelLink(channelId)} has no subscriptions. \`/tender subscribe pipeline &lt;bid&gt;\`, \`/tender subscribe search &lt;words&gt;\` or \`/tender subscribe deadlines\` start one.`;
    return { text, blocks: [section(text)] };
  }
  const blocks: Block[] = [section(mrkdwn`*Subscriptions of ${channelLink(channelId)}*`)];
  if (out)
    blocks.push(
      section(
        out === 'archived'
          ? mrkdwn`:warning: ${channelLink(channelId)} is archived, so none of these can post here.`
          : mrkdwn`:warning: Tenderbot is not in ${channelLink(channelId)}, so none of these can post here until it is invited (\`/invite @Tenderbot\`).`,
      ),
    );
  for (const { subscription, what, when, next } of items.slice(0, LIST_LIMIT)) {
    const state = subscription.pausedReason
      ? mrkdwn`:double_vertical_bar: Paused: ${safeText(subscription.pausedReason, 300)}.${readOnly ? mrkdwn`` : mrkdwn` Send now starts it again.`}`
      : mrkdwn`Next post ${plain(next)}.`;
    blocks.push({ type: 'divider' });
    blocks.push(
      section(mrkdwn`*${what}*\n${plain(when)} · set up by ${mention(subscription.createdBy)}\n${state}`),
    );
    if (readOnly) continue;
    blocks.push({
      type: 'actions',
      block_id: `subscription:${subscription.id}`,
      elements: [
        button('Send now', SubscriptionIds.sendNow, subscription.id, 'primary'),
        {
          ...button('Unsubscribe', SubscriptionIds.unsubscribe, subscription.id, 'danger'),
          confirm: {
            title: { type: 'plain_text', text: 'Unsubscribe?' },
            // Plain text: the summary's own marks (code, quotes drawn as look-alikes) read back as typed.
            text: {
              type: 'plain_text',
              text: clip(plainOf(mrkdwn`This channel will no longer get ${what}.`), 300),
            },
            confirm: { type: 'plain_text', text: 'Unsubscribe' },
            deny: { type: 'plain_text', text: 'Keep it' },
          },
        },
      ],
    });
    blocks.push(
      contextLine(mrkdwn`Id ${code(subscription.id)}: ${code(`/tender unsubscribe ${subscription.id}`)}`),
    );
  }
  if (items.length > LIST_LIMIT) blocks.push(contextLine(mrkdwn`…and ${items.length - LIST_LIMIT} more.`));
  return { text: mrkdwn`Subscriptions of this channel: ${items.length}`, blocks };
}
