import type { Tender } from '../../../contract/schemas.ts';
import type { AppSlack } from '../../adapters/app-slack.ts';
import { bookmarkedIds } from '../../shared/bookmarked-ids.ts';
import { NotConnectedError } from '../../shared/errors.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests, reply } from '../../shared/feature-context.ts';
import { TenderIds, UNFURL_IDS } from '../../shared/ids.ts';
import { writerOrSentence } from '../../shared/key-access.ts';
import { encodeIfFits } from '../../shared/values/codec.ts';
import { sentenceMessage } from '../../shared/views/messages.ts';
import { link, type Mrkdwn, mrkdwn, safeText } from '../../shared/views/mrkdwn.ts';
import { type Block, section, tenderCard } from '../../shared/views/tender-card.ts';
import { bidReferences, idsOldestFirst } from '../bids/index.ts';
import { followBookmarkChange } from '../tenders/index.ts';
import {
  bidEntity,
  recogniseBidLink,
  tenderEntity,
  type UnfurlTarget,
  unfurlEntities,
} from '../work-objects/index.ts';
import { serviceOrigins } from './direct-messages.ts';
import { findTender } from './find-tender.ts';
import { type NoticeRef, recogniseNoticeLink } from './notice-links.ts';

/** The card's facts a preview keeps. */
const COMPACT_FIELDS = ['*Buyer*', '*Value*', '*Deadline*', '*Status*'];

/** Slack sends at most a handful of links per message; more than this are left as they are. */
const LINKS_MAX = 5;
/** Each look-up gets this long: an unfurl that comes late is worth less than none. */
const LOOKUP_TIMEOUT_MS = 5000;

/** What `link_shared` gives: the message (or the composer's unfurl id) and its links. */
export interface SharedLinks {
  teamId: string;
  channel: string;
  messageTs: string;
  unfurlId?: string;
  source?: string;
  /** Who posted the message: told, to them alone, of notice links the service does not hold. */
  userId?: string;
  /** The thread the message is in, where that is said too. */
  threadTs?: string;
  links: readonly { url: string; domain?: string }[];
}

/**
 * A tender as a link preview: the card's title, compact facts and source line, and its buttons.
 * Share is left out (the link is already in the channel); Bookmark is the preview's own, since
 * the card's redraws the message it sits in, which is the person's here.
 */
export function unfurlBlocks(tender: Tender, now: Date, bookmarked = false): Block[] {
  const blocks = tenderCard(tender, { bookmarked, shared: true, now, context: 'shared' });
  const value = encodeIfFits('record', tender.id);
  return blocks.map((block) => {
    if (block.type === 'section' && block.fields)
      // Compact under a message: who, how much, when, and whether it is still open.
      return {
        ...block,
        fields: block.fields.filter((field) => COMPACT_FIELDS.some((name) => field.text.startsWith(name))),
      };
    if (block.type !== 'actions') return block;
    const elements = block.elements.flatMap((element) => {
      const id = 'action_id' in element ? element.action_id : undefined;
      if (id === TenderIds.share) return [];
      if (id !== TenderIds.bookmark && id !== TenderIds.removeBookmark) return [element];
      if (!value) return [];
      // The same look (and the same confirmation before a removal), another action.
      return [
        {
          ...element,
          action_id: id === TenderIds.bookmark ? UNFURL_IDS.bookmark : UNFURL_IDS.removeBookmark,
          value,
        },
      ];
    });
    return { ...block, elements } as Block;
  });
}

/** The links of a message that name notices of known sources, each once (Slack's limit applied). */
export function recognisedLinks(
  links: readonly { url: string }[],
  origins: readonly string[],
): { url: string; ref: NoticeRef }[] {
  const found: { url: string; ref: NoticeRef }[] = [];
  for (const { url } of links) {
    if (found.some((entry) => entry.url === url)) continue;
    const ref = recogniseNoticeLink(url, origins);
    if (ref) found.push({ url, ref });
    if (found.length >= LINKS_MAX) break;
  }
  return found;
}

/**
 * `link_shared`: each link to a notice the service holds, and each link to a bid, becomes a Work
 * Object entity under the message (`chat.unfurl` with `metadata.entities`); where Slack refuses
 * entities (the workspace does not have them), tenders get their card instead (bids have none).
 * Any other link, and one the workspace's key cannot read, is left alone (no call at all when none
 * is found); so is a link to a bid posted by a guest. A notice link of a known source that the service answers it does not hold is said to
 * the person who posted it, alone (else nothing tells them why no card came); nothing is said when
 * a look-up fails.
 */
export async function unfurlLinks(
  context: FeatureContext,
  slack: AppSlack,
  shared: SharedLinks,
): Promise<void> {
  const origins = serviceOrigins(context);
  const candidates = recognisedLinks(shared.links, origins);
  const linkedBids = recognisedBidLinks(shared.links, origins, LINKS_MAX - candidates.length);
  // A guest is refused bid cards in a channel (`/tender pipeline`, the workflow step): a pasted
  // link to a bid is no way round that, and a poster who cannot be told apart is taken for one.
  const bidLinks = linkedBids.length > 0 && (await postedByGuest(context, shared)) ? [] : linkedBids;
  if (candidates.length === 0 && bidLinks.length === 0) return;
  let client: Awaited<ReturnType<FeatureContext['clients']['forTeam']>>['client'];
  try {
    ({ client } = await context.clients.forTeam(shared.teamId));
  } catch (error) {
    // No key: links stay as Slack shows them.
    if (error instanceof NotConnectedError) return;
    throw error;
  }
  const now = context.clock();
  /** The record, null when the service does not hold it, undefined when the look-up failed. */
  const lookUp = async <T>(find: () => Promise<T | null>): Promise<T | null | undefined> => {
    try {
      return await find();
    } catch (error) {
      context.logger.warn({ err: error, teamId: shared.teamId }, 'a shared link could not be looked up');
      return undefined;
    }
  };
  const notHeld: { url: string; ref: NoticeRef }[] = [];
  const [found, bids] = await Promise.all([
    Promise.all(
      candidates.map(async ({ url, ref }) => {
        const tender = await lookUp(() => findTender(client, ref, { timeoutMs: LOOKUP_TIMEOUT_MS }));
        if (tender === null) notHeld.push({ url, ref });
        return tender ? { url, tender } : null;
      }),
    ),
    Promise.all(
      bidLinks.map(async ({ url, bidId }) => {
        const bid = await lookUp(() => client.pipelines.get(bidId, { timeoutMs: LOOKUP_TIMEOUT_MS }));
        return bid ? { url, bid } : null;
      }),
    ),
  ]);
  const shown = found.filter((entry) => entry !== null);
  const shownBids = bids.filter((entry) => entry !== null);
  // Slack's two ways to name what is unfurled: the composer's unfurl id, or the posted message.
  const target: UnfurlTarget =
    shared.unfurlId && (shared.source === 'composer' || shared.source === 'conversations_history')
      ? { unfurl_id: shared.unfurlId, source: shared.source }
      : { channel: shared.channel, ts: shared.messageTs };
  // A bid is shown by its reference (`BID-7`), as everywhere people see one.
  const references = await bidReferences(
    context,
    shared.teamId,
    idsOldestFirst(shownBids.map((entry) => entry.bid)),
  );
  const entities = [
    ...shown.map((entry) =>
      tenderEntity(entry.tender, { url: tenderUrl(context, entry.tender.id), appUnfurlUrl: entry.url }, now),
    ),
    ...shownBids.map((entry) =>
      bidEntity(
        entry.bid,
        { url: entry.url, appUnfurlUrl: entry.url },
        references.get(entry.bid.id) as string,
      ),
    ),
  ];
  // The cards first: what was found is not held up by telling what was not.
  if (!(await unfurlEntities(context, slack, shared.teamId, target, entities)) && shown.length > 0) {
    const unfurls: Record<string, { blocks: Block[] }> = {};
    // A card in a channel shows the workspace's bookmarks as they are, as a shared card does (read once).
    const bookmarked = await bookmarkedIds(client).catch(() => new Set<string>());
    for (const entry of shown)
      unfurls[entry.url] = { blocks: unfurlBlocks(entry.tender, now, bookmarked.has(entry.tender.id)) };
    await slack.chat.unfurl({ ...target, unfurls });
  }
  await sayNotHeld(context, slack, shared, notHeld);
}

/** Whether the person who posted the links is a guest (or cannot be told apart from one). */
async function postedByGuest(context: FeatureContext, shared: SharedLinks): Promise<boolean> {
  if (!shared.userId) return true;
  try {
    return (await context.users.facts(shared.userId, shared.teamId)).isGuest;
  } catch (error) {
    context.logger.warn(
      { err: error, teamId: shared.teamId },
      'could not tell whether a link’s poster is a guest',
    );
    return true;
  }
}

/**
 * Tells the person who posted notice links the service does not hold, to them alone, why no card
 * came and what finds the tender instead. Only for a posted message (a link still in the composer
 * may never be sent), and a failure to tell is only logged.
 */
async function sayNotHeld(
  context: FeatureContext,
  slack: AppSlack,
  shared: SharedLinks,
  notHeld: readonly { url: string; ref: NoticeRef }[],
): Promise<void> {
  if (notHeld.length === 0 || !shared.userId || !shared.channel || shared.source === 'composer') return;
  const sentence = notHeldSentence(notHeld);
  await slack.chat
    .postEphemeral({
      channel: shared.channel,
      user: shared.userId,
      ...(shared.threadTs ? { thread_ts: shared.threadTs } : {}),
      text: sentence,
      blocks: [section(sentence)],
    })
    .catch((error: unknown) =>
      context.logger.warn({ err: error, channel: shared.channel }, 'could not say a notice is not held'),
    );
}

/** The refs that are no publisher's notice: the service's own tender links, and typed ids. */
const NOT_PUBLISHERS: ReadonlySet<string> = new Set(['Tenderbot', 'typed']);

/** Why a notice link got no card: which notices (by source), and how to find them instead. */
export function notHeldSentence(notHeld: readonly { url: string; ref: NoticeRef }[]): Mrkdwn {
  const [first] = notHeld;
  if (notHeld.length === 1 && first) {
    const what = !NOT_PUBLISHERS.has(first.ref.source)
      ? mrkdwn`that ${safeText(first.ref.source, 60)} notice`
      : mrkdwn`that link`;
    // The link itself, so the one meant is plain in a message with several.
    return mrkdwn`No card for ${link(first.url, what) ?? what}: the Procurement Intelligence Service does not hold it (it may be newer than the service’s last import, or withdrawn). Try \`/tender search\` with words from its title.`;
  }
  return mrkdwn`No cards for ${notHeld.length} of those notice links: the Procurement Intelligence Service does not hold them (they may be newer than the service’s last import, or withdrawn). Try \`/tender search\` with words from their titles.`;
}

/** The service's own address of a tender: the entity's `url`, the same whichever link was pasted. */
function tenderUrl(context: FeatureContext, tenderId: string): string {
  return `${context.config.PROCUREMENT_API_URL.replace(/\/+$/, '')}/v1/tenders/${encodeURIComponent(tenderId)}`;
}

/** The links of a message to bids (`…/v1/pipelines/<id>` on the service), each once, `max` at most. */
function recognisedBidLinks(
  links: readonly { url: string }[],
  origins: readonly string[],
  max: number,
): { url: string; bidId: string }[] {
  const found: { url: string; bidId: string }[] = [];
  for (const { url } of links) {
    if (found.length >= max) break;
    if (found.some((entry) => entry.url === url)) continue;
    const bidId = recogniseBidLink(url, origins);
    if (bidId) found.push({ url, bidId });
  }
  return found;
}

/**
 * Bookmark or remove from a preview: the workspace's list changes, and the preview is drawn again
 * for everyone with the new state (chat.unfurl on the same message and link). Guests are refused.
 * Someone who linked their own key changes their own list instead (the preview stays as it is),
 * and a workspace that requires personal keys for changes refuses those without one.
 */
export async function toggleUnfurlBookmark(
  context: FeatureContext,
  request: SlackRequest,
  args: { tenderId: string; add: boolean; url: string | null; messageTs: string | null },
): Promise<void> {
  if (await refuseGuests(context, request, args.add ? 'bookmark tenders' : 'remove bookmarks')) return;
  const writer = await writerOrSentence(context, request);
  if (!writer) return;
  const { client, source } = writer;
  if (args.add) await client.bookmarks.add(args.tenderId);
  else await client.bookmarks.remove(args.tenderId);
  // The workspace's list changed: the tender's cards shared in its channels follow (after this answer).
  if (source !== 'personal')
    followBookmarkChange(context, request.slack, {
      teamId: request.teamId,
      tenderId: args.tenderId,
      userId: request.userId,
      added: args.add,
    });
  const tender = await client.tenders.get(args.tenderId);
  if (source === 'personal') {
    // The preview shows the workspace's list to everyone: this person's own list changed, said to them alone.
    const own = args.add
      ? mrkdwn`Bookmarked *${safeText(tender.title, 200)}* in your own list (you linked your own key). The preview shows the workspace’s shared list.`
      : mrkdwn`Removed *${safeText(tender.title, 200)}* from your own list (you linked your own key). The preview shows the workspace’s shared list.`;
    await reply(request, sentenceMessage(own));
    return;
  }
  if (args.url && args.messageTs && request.channelId) {
    await request.slack.chat.unfurl({
      channel: request.channelId,
      ts: args.messageTs,
      unfurls: { [args.url]: { blocks: unfurlBlocks(tender, context.clock(), args.add) } },
    });
  }
  const sentence = args.add
    ? mrkdwn`Bookmarked *${safeText(tender.title, 200)}* for the workspace.`
    : mrkdwn`Removed *${safeText(tender.title, 200)}* from the workspace’s bookmarks.`;
  await reply(request, sentenceMessage(sentence));
}
