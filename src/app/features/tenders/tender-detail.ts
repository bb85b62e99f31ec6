import { NotFoundError, ValidationError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Tender } from '../../../contract/schemas.ts';
import { bookmarkedIds } from '../../shared/bookmarked-ids.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { inChannel, refuseGuests, reply } from '../../shared/feature-context.ts';
import { writerOrSentence } from '../../shared/key-access.ts';
import type { SearchState } from '../../shared/values/button-values.ts';
import { bookmarkButtonsLine, type KeySource } from '../../shared/views/key-identity.ts';
import { type Message, sentenceMessage } from '../../shared/views/messages.ts';
import { code, joinMrkdwn, mrkdwn, text as plain, safeText } from '../../shared/views/mrkdwn.ts';
import { contextLine, section, tenderDetail } from '../../shared/views/tender-card.ts';
import { isGuest, showSearchPage } from './search.ts';
import { bookmarkChangeLine, followBookmarkChange } from './shared-cards.ts';
import { BOOKMARKS_PAGE_SIZE, bookmarksMessage, sharedTenderMessage } from './views/search-messages.ts';

/**
 * A tender by its id or printed reference (`/tender show`), the key's bookmarks (`/tender
 * bookmarks`) and the Bookmark and Remove buttons wherever a card shows them; the search pages
 * these redraw are search.ts's.
 */
/** `/tender show <id>` and `/tender <id>`. */
export async function showCommand(context: FeatureContext, request: SlackRequest, id: string): Promise<void> {
  if (!id) {
    await reply(request, {
      text: mrkdwn`Which tender?`,
      blocks: [
        section(mrkdwn`Give the tender’s id after \`/tender show\`, as a tender’s card shows it in code.`),
      ],
    });
    return;
  }
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  // The id, or a reference as its source prints it (a Contracts Finder notice id, a Buyandsell
  // number): the service takes either when one tender has it.
  const [found, bookmarked, readOnly] = await Promise.all([
    tenderByReference(context, request, id),
    bookmarkedIds(client),
    isGuest(context, request),
  ]);
  if (found.kind === 'one') {
    const bookmark = bookmarked.has(found.tender.id);
    await reply(request, detailMessage(context, request, found.tender, bookmark, source, readOnly));
    return;
  }
  if (found.kind === 'several') {
    // One printed reference, several tenders (a notice and its amendments under new ids): each by its id.
    const ids = joinMrkdwn(
      found.tenders.map(
        (tender) => mrkdwn`${code(`/tender show ${tender.id}`, 200)} ${safeText(tender.title, 150)}`,
      ),
      mrkdwn`\n`,
    );
    const sentence = mrkdwn`${plain(found.total.toLocaleString('en-GB'))} tenders have the reference ${code(id, 300)}:\n${ids}`;
    await reply(request, sentenceMessage(sentence));
    return;
  }
  // A bid's reference typed where a tender's goes (`/tender BID-3`): say where bids are shown.
  const sentence = /^bid[-\s]?\d{1,9}$/i.test(id.trim())
    ? mrkdwn`${code(id, 30)} is a bid’s reference, not a tender’s: ${code(`/tender pipeline ${id.trim()}`, 50)} shows its card.`
    : mrkdwn`No tender has the id or reference ${code(id, 300)}. Check it, or find the tender with \`/tender search\`.`;
  await reply(request, sentenceMessage(sentence));
}

/** How many tenders a reference lists at most when several have it. */
const TENDERS_OF_A_REFERENCE = 5;

/**
 * The tender an id or printed reference names: by the service's own lookup (its id, or a reference
 * one tender has), else by a search by reference (several may have it).
 */
export async function tenderByReference(
  context: FeatureContext,
  request: SlackRequest,
  reference: string,
): Promise<
  { kind: 'one'; tender: Tender } | { kind: 'several'; tenders: Tender[]; total: number } | { kind: 'none' }
> {
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  try {
    return { kind: 'one', tender: await client.tenders.get(reference) };
  } catch (error) {
    if (!(error instanceof NotFoundError || error instanceof ValidationError)) throw error;
  }
  try {
    const page = await client.tenders.search({ reference, limit: TENDERS_OF_A_REFERENCE });
    const [first] = page.data;
    if (!first) return { kind: 'none' };
    if (page.pagination.total === 1) return { kind: 'one', tender: first };
    return { kind: 'several', tenders: page.data, total: page.pagination.total };
  } catch (error) {
    // A reference the service refuses (too long, blank) names no tender.
    if (error instanceof ValidationError) return { kind: 'none' };
    throw error;
  }
}

/** `/tender bookmarks`, a page at a time. */
export async function bookmarksCommand(
  context: FeatureContext,
  request: SlackRequest,
  replace = false,
  offset = 0,
): Promise<void> {
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  const [page, readOnly] = await Promise.all([
    client.bookmarks.list({ limit: BOOKMARKS_PAGE_SIZE, offset }),
    isGuest(context, request),
  ]);
  const listed = { offset, typed: '', pageSize: BOOKMARKS_PAGE_SIZE };
  const message = bookmarksMessage(
    page.data,
    page.pagination.total,
    source,
    context.clock(),
    listed,
    readOnly,
  );
  await reply(request, message, replace);
}

/** Bookmark or remove, then redraw the card where it was clicked. */
export async function toggleBookmark(
  context: FeatureContext,
  request: SlackRequest,
  target: { tenderId: string; place: 'shared' | 'bookmarks' | 'detail' | SearchState; sharedBy?: string },
  add: boolean,
  container: { isEphemeral: boolean; messageTs: string | null },
): Promise<void> {
  if (await refuseGuests(context, request, add ? 'bookmark tenders' : 'remove bookmarks')) return;
  const { tenderId, place: where } = target;
  const writer = await writerOrSentence(context, request);
  if (!writer) return;
  const { client, source } = writer;
  const sharedCard =
    where === 'shared' && !container.isEphemeral && container.messageTs !== null && source !== 'personal';
  // A channel's card may be older than the list (bookmarked elsewhere since): a click that changes
  // nothing redraws the card and is said to the clicker alone, not told in the thread as a change.
  const already = sharedCard && (await bookmarkedIds(client)).has(tenderId) === add;
  if (!already) {
    if (add) await client.bookmarks.add(tenderId);
    else await client.bookmarks.remove(tenderId);
  }
  try {
    await answerBookmarkClick(context, request, target, add, container, {
      client,
      source,
      sharedCard,
      already,
    });
  } finally {
    // The workspace's list changed: every card of the tender shared in its channels shows it, once
    // the clicker is answered (the card clicked is already redrawn).
    if (!already && source !== 'personal')
      followBookmarkChange(
        context,
        request.slack,
        { teamId: request.teamId, tenderId, userId: request.userId, added: add },
        sharedCard && container.messageTs ? { channelId: request.channelId, ts: container.messageTs } : null,
      );
  }
}

/** The card clicked redrawn with the bookmark as it now is, or the change said to the clicker. */
async function answerBookmarkClick(
  context: FeatureContext,
  request: SlackRequest,
  target: { tenderId: string; place: 'shared' | 'bookmarks' | 'detail' | SearchState; sharedBy?: string },
  add: boolean,
  container: { isEphemeral: boolean; messageTs: string | null },
  writer: { client: ProcurementClient; source: KeySource; sharedCard: boolean; already: boolean },
): Promise<void> {
  const { tenderId, place: where } = target;
  const { client, source, sharedCard, already } = writer;
  if (sharedCard && container.messageTs) {
    // A card in the channel: the workspace shares one bookmark list, so everyone sees the new state.
    const tender = await client.tenders.get(tenderId);
    const message = sharedTenderMessage(tender, target.sharedBy ?? request.userId, add, context.clock());
    await request.slack.chat.update({
      channel: request.channelId,
      ts: container.messageTs,
      text: message.text,
      blocks: message.blocks,
    });
    if (already) {
      const sentence = add
        ? mrkdwn`This tender was already in the workspace’s bookmarks; the card now shows it.`
        : mrkdwn`This tender was not in the workspace’s bookmarks; the card now shows it.`;
      await reply(request, sentenceMessage(sentence));
      return;
    }
    // The list is the whole workspace's: the card's thread says who changed it.
    await request.slack.chat.postMessage({
      channel: request.channelId,
      thread_ts: container.messageTs,
      text: bookmarkChangeLine(request.userId, add),
    });
    return;
  }
  if (where === 'bookmarks') return bookmarksCommand(context, request, true);
  if (where === 'detail') {
    const tender = await client.tenders.get(tenderId);
    await reply(request, detailMessage(context, request, tender, add, source), true);
    return;
  }
  if (where === 'shared' && source === 'personal') {
    // The channel's card shows the workspace's list; this person's own list changed, said to them alone.
    const sentence = add
      ? mrkdwn`Bookmarked in your own list (you linked your own key). The card in the channel shows the workspace’s shared list.`
      : mrkdwn`Removed from your own list (you linked your own key). The card in the channel shows the workspace’s shared list.`;
    await reply(request, sentenceMessage(sentence));
    return;
  }
  if (typeof where === 'string') {
    // A shared card seen where it cannot be redrawn: say what happened instead.
    const sentence = add ? mrkdwn`Bookmarked.` : mrkdwn`Bookmark removed.`;
    await reply(request, sentenceMessage(sentence));
    return;
  }
  await showSearchPage(context, request, where, true);
}

/** A tender in full, with a line saying which list its Bookmark button changes. */
function detailMessage(
  context: FeatureContext,
  request: SlackRequest,
  tender: Tender,
  bookmarked: boolean,
  source: KeySource,
  readOnly = false,
): Message {
  return {
    text: plain(tender.title),
    blocks: [
      ...tenderDetail(tender, {
        bookmarked,
        shared: false,
        now: context.clock(),
        context: 'detail',
        canShare: inChannel(request),
        readOnly,
      }),
      ...(readOnly ? [] : [contextLine(bookmarkButtonsLine(source))]),
    ],
  };
}
