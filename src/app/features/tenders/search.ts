import { formatISO } from 'date-fns/formatISO';
import { NotFoundError, ValidationError } from '../../../client/errors.ts';
import type { Tender } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { IN_UTC } from '../../../shared/utc.ts';
import { bookmarkedIds } from '../../shared/bookmarked-ids.ts';
import type { TenderSearchFilters } from '../../shared/commands/parse-command.ts';
import { readSentence } from '../../shared/commands/read-sentence.ts';
import { subcommandMeant } from '../../shared/commands/subcommands.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests, reply } from '../../shared/feature-context.ts';
import { SearchIds } from '../../shared/ids.ts';
import { writerOrSentence } from '../../shared/key-access.ts';
import { parseWithRegions, regionsFor, unknownRegion } from '../../shared/regions.ts';
// Defined beside the schema of the values that carry it (no import circle through the buttons).
import type { SearchState } from '../../shared/values/button-values.ts';
import { encodeIfFits } from '../../shared/values/codec.ts';
import {
  currencyWordSentence,
  endOfDay,
  regionReadSentence,
  searchHeading,
  wordsCutSentence,
} from '../../shared/views/describe-search.ts';
import { formatDayOf } from '../../shared/views/formats.ts';
import { bookmarkButtonsLine, type KeySource } from '../../shared/views/key-identity.ts';
import { helpMessage, type Message, sentenceMessage } from '../../shared/views/messages.ts';
import {
  clip,
  code,
  joinMrkdwn,
  literalText,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
} from '../../shared/views/mrkdwn.ts';
import {
  commandMeantMessage,
  correctedWords,
  searchMeantButton,
  searchOfferBlocks,
  sentenceMeantBlocks,
  wordsMeantQuestion,
} from '../../shared/views/suggestions.ts';
import { type Block, button, contextLine, section, tenderDetail } from '../../shared/views/tender-card.ts';
import {
  BOOKMARKS_PAGE_SIZE,
  bookmarksMessage,
  PAGE_SIZE,
  searchResultsMessage,
  sharedTenderMessage,
} from './views/search-messages.ts';

export type { SearchState };

/** `/tender search …`: the first page, to the caller alone. */
export async function searchCommand(
  context: FeatureContext,
  request: SlackRequest,
  text: string,
  /** A sentence read as this search: the answer first shows the command, so people learn it. */
  options: { shownAs?: Mrkdwn } = {},
): Promise<void> {
  const parsed = await parseWithRegions(context, request.teamId, text);
  if (!parsed.ok) {
    await reply(request, {
      // What was typed is quoted in code spans, escaped (parse-command.ts).
      text: parsed.problem,
      blocks: [
        // A sentence read as a search: the command it was read as, which the problem speaks of.
        ...(options.shownAs ? [contextLine(options.shownAs)] : []),
        section(mrkdwn`${parsed.problem} See \`/tender help\`.`),
      ],
    });
    return;
  }
  const filters = { ...parsed.filters };
  const cutSentence = parsed.wordsCut ? wordsCutSentence(filters.q) : null;
  const cut: Block[] = cutSentence ? [contextLine(cutSentence)] : [];
  if (parsed.regionRead) cut.unshift(contextLine(regionReadSentence(parsed.regionRead)));
  const currencyRead = parsed.currencyWord ? currencyWordSentence(parsed.currencyWord) : null;
  if (currencyRead) cut.unshift(contextLine(currencyRead));
  let note: Block[] = [];
  let buyerChosen: string | null = null;
  if (parsed.buyerName) {
    // The key is looked up here only when a buyer is named: showSearchPage looks it up for the page.
    const { client } = await context.clients.forPerson(request.teamId, request.userId);
    const buyers = await client.buyers.list({ q: parsed.buyerName, limit: OTHER_BUYERS_SHOWN + 1 });
    const buyer = chooseBuyer(buyers.data, parsed.buyerName);
    if (!buyer) {
      const sentence = mrkdwn`No buyer is called “${literalText(parsed.buyerName)}”. Find it with ${code(`/tender buyers ${parsed.buyerName}`)}.`;
      await reply(request, sentenceMessage(sentence));
      return;
    }
    filters.buyerId = buyer.id;
    buyerChosen = buyer.name;
    const others = buyers.data.filter((other) => other.id !== buyer.id).slice(0, OTHER_BUYERS_SHOWN);
    note = otherBuyersNote(parsed.buyerName, buyer, others, buyers.pagination.total, filters);
  }
  note = [...cut, ...note];
  await showSearchPage(
    context,
    request,
    { f: filters, o: 0, ...(buyerChosen ? { b: cutText(buyerChosen, 200) } : {}) },
    false,
    note,
    async () => {
      // The region's lookup may fail: the cut is said all the same.
      const unknown = filters.region
        ? await unknownRegion(context, request.teamId, filters.region, parsed.afterRegion).catch(() => null)
        : null;
      const region = unknown?.sentence ?? null;
      // How the region was read is said when nothing was found too: that is when it matters most.
      const read = parsed.regionRead ? regionReadSentence(parsed.regionRead) : null;
      const said = [currencyRead, read, cutSentence, region].filter(
        (sentence): sentence is Mrkdwn => sentence !== null,
      );
      return {
        said: said.length > 0 ? [section(joinMrkdwn(said, mrkdwn` `))] : [],
        // A misspelt region (`region:Londn`): the search in the region meant, one click away.
        region: unknown?.meant ?? null,
        regionUnknown: Boolean(unknown),
        // Typed as a sentence in a channel ("cleaning in Wales over £100k"): the words found nothing,
        // so the search the sentence means is offered (a sentence already read is not read again).
        offers: options.shownAs ? [] : await sentenceMeant(context, request, text),
      };
    },
    options.shownAs ? [contextLine(options.shownAs)] : [],
  );
}

/** The blocks offering what `text` means as a sentence, when it reads as one. */
async function sentenceMeant(context: FeatureContext, request: SlackRequest, text: string): Promise<Block[]> {
  const search = await sentenceSearch(context, request, text);
  return search ? sentenceMeantBlocks(search) : [];
}

/** The search `text` makes read as a sentence ("cleaning in Wales over £100k"), or null. */
async function sentenceSearch(
  context: FeatureContext,
  request: SlackRequest,
  text: string,
): Promise<string | null> {
  const regions = await regionsFor(context, request.teamId, 'typed').catch(() => []);
  return readSentence(text, context.clock(), regions)?.search ?? null;
}

/**
 * A search written as a sentence ("school catering in Wales"): the regions of the data, amounts
 * and time phrases read as filters, and the answer first shows the command it ran; a phrase with
 * nothing to read as a filter is searched as words, as typed.
 */
export async function searchSentence(
  context: FeatureContext,
  request: SlackRequest,
  text: string,
): Promise<void> {
  // The regions the data names; without them (the lookup failed), the rest is still read.
  const regions = await regionsFor(context, request.teamId, 'typed').catch(() => []);
  const read = readSentence(text, context.clock(), regions);
  if (!read) return searchCommand(context, request, text);
  const year = read.dayOfNextYear ? mrkdwn` ${nextYearSentence(read.dayOfNextYear)}` : mrkdwn``;
  return searchCommand(context, request, read.search, {
    shownAs: mrkdwn`Searched: ${code(`/tender search ${read.search}`, 400)}${year}`,
  });
}

/** A closing day typed without a year, read as next year's: said, so the year is never a surprise. */
function nextYearSentence(read: { typed: string; day: string }): Mrkdwn {
  const day = endOfDay(read.day);
  const thisYears = new Date(day);
  thisYears.setUTCFullYear(day.getUTCFullYear() - 1);
  return mrkdwn`Read “${literalText(read.typed)}” as ${plain(formatDayOf(day))}: no year was given, and ${plain(formatDayOf(thisYears))} has passed.`;
}

/** How many other buyers a search by a buyer's name offers when the name matched several. */
const OTHER_BUYERS_SHOWN = 5;

/** The buyer whose name is exactly what was typed (any case), else the service's best match. */
function chooseBuyer<T extends { name: string }>(buyers: readonly T[], typed: string): T | undefined {
  const wanted = typed.trim().toLowerCase();
  return buyers.find((buyer) => buyer.name.trim().toLowerCase() === wanted) ?? buyers[0];
}

/**
 * When `buyer:Leeds` matched several buyers: which one the search used, and a button for each of
 * the others (the same search for that buyer), so nobody reads another council's tenders unawares.
 */
function otherBuyersNote(
  typed: string,
  chosen: { name: string },
  others: readonly { id: string; name: string }[],
  total: number,
  filters: TenderSearchFilters,
): Block[] {
  if (others.length === 0) return [];
  const more = total - 1 - others.length;
  const blocks: Block[] = [
    contextLine(
      mrkdwn`Several buyers match “${safeText(typed, 100)}”: these are tenders of *${safeText(chosen.name, 150)}*.${
        more > 0
          ? mrkdwn` ${plain(more.toLocaleString('en-GB'))} more match; ${code(`/tender buyers ${typed}`, 125)} lists them all.`
          : mrkdwn``
      }`,
    ),
  ];
  const buttons = others.flatMap((other, index) => {
    const value = encodeIfFits('searchPage', {
      f: { ...filters, buyerId: other.id },
      o: 0,
      b: cutText(other.name, 200),
    });
    return value ? [button(clip(other.name, 75), `${SearchIds.otherBuyer}/${index}`, value)] : [];
  });
  if (buttons.length > 0) blocks.push({ type: 'actions', elements: buttons });
  return blocks;
}

/** Under a search that found nothing: what may be why, the region it most likely meant, other searches meant. */
interface WhyEmpty {
  said: Block[];
  region: string | null;
  /** The search's region is not in the data (whether or not one is near it). */
  regionUnknown: boolean;
  offers: Block[];
}
const NOTHING_TO_SAY: WhyEmpty = { said: [], region: null, regionUnknown: false, offers: [] };

/** Draws one page of a search; `replace` redraws the message a button was clicked in. */
export async function showSearchPage(
  context: FeatureContext,
  request: SlackRequest,
  state: SearchState,
  replace: boolean,
  /** Blocks shown under the heading of this page only (which buyer a name chose). */
  note: Block[] = [],
  /** When nothing matches, what may be why (an unknown region) or meant instead, asked only then. */
  whenEmpty: () => Promise<WhyEmpty> = async () => NOTHING_TO_SAY,
  /** Blocks shown first, whatever was found (the command a sentence was read as). */
  lead: Block[] = [],
): Promise<void> {
  // One key lookup for the page and the bookmarks: the same key, and two store reads fewer a search.
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  const [page, bookmarked, readOnly] = await Promise.all([
    client.tenders.search({ ...state.f, limit: PAGE_SIZE, offset: state.o }),
    bookmarkedIds(client),
    isGuest(context, request),
  ]);
  const message = searchResultsMessage({
    // The value bounds as the service applied them: in which currency, converted at which rates.
    heading: searchHeading(state.f, state.b, state.n, page.valueRule, {
      // Counted as closes> and closes< count their days (parse-command's deadlineWindow).
      today: formatISO(context.clock(), { representation: 'date', ...IN_UTC }),
    }),
    // A direct message with Tenderbot (D…) has no channel to share a card into.
    canShare: !request.channelId.startsWith('D'),
    tenders: page.data,
    total: page.pagination.total,
    offset: state.o,
    bookmarked,
    state: (offset) => ({ ...state, o: offset }),
    now: context.clock(),
    keySource: source,
    readOnly,
  });
  if (note.length > 0 && page.pagination.total > 0) message.blocks.splice(1, 0, ...note);
  if (page.pagination.total === 0) {
    // A word that found nothing, and the word of the data it most likely meant: offered as a search.
    const corrected =
      state.f.q && page.suggestions?.length ? correctedWords(state.f.q, page.suggestions) : null;
    const why = await whenEmpty().catch(() => NOTHING_TO_SAY);
    message.blocks.push(
      ...(corrected ? [wordsMeantQuestion(corrected)] : []),
      ...why.said,
      ...searchMeantButton(state, { words: corrected, region: why.region, regionUnknown: why.regionUnknown }),
      ...why.offers,
    );
  }
  if (lead.length > 0) message.blocks.unshift(...lead);
  await reply(request, message, replace);
}

/**
 * `/tender serach cleaning`: the command meant, when one subcommand is near enough to the word typed
 * (with a button running it on the same words); else the help card, under the search the words
 * make (`/tender school catering in Wales over 100k`: as the sentence reads, in one click).
 */
export async function unknownCommandMessage(
  context: FeatureContext,
  request: SlackRequest,
  word: string,
  rest: string,
): Promise<Message> {
  const meant = subcommandMeant(word);
  if (meant) return commandMeantMessage(word, meant, rest);
  const typed = rest ? `${word} ${rest}` : word;
  const search = await sentenceSearch(context, request, typed);
  return helpMessage(word, searchOfferBlocks(typed, search ?? typed));
}

/** `/tender show <id>` and `/tender <id>`. */
export async function showCommand(context: FeatureContext, request: SlackRequest, id: string): Promise<void> {
  if (!id) {
    await reply(request, {
      text: mrkdwn`Which tender?`,
      blocks: [section(mrkdwn`Give the tender’s id: \`/tender show ocds-…\`.`)],
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
      text: add
        ? mrkdwn`${mention(request.userId)} bookmarked this tender.`
        : mrkdwn`${mention(request.userId)} removed this tender from the bookmarks.`,
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
        canShare: !request.channelId.startsWith('D'),
        readOnly,
      }),
      ...(readOnly ? [] : [contextLine(bookmarkButtonsLine(source))]),
    ],
  };
}

/** A guest's answers offer only what a guest may use (every write refuses them). */
async function isGuest(context: FeatureContext, request: SlackRequest): Promise<boolean> {
  return (await context.users.facts(request.userId, request.teamId)).isGuest;
}
