import { formatISO } from 'date-fns/formatISO';
import { cutText } from '../../../shared/cut-text.ts';
import { IN_UTC } from '../../../shared/utc.ts';
import { bookmarkedIds } from '../../shared/bookmarked-ids.ts';
import { unreadableDay } from '../../shared/commands/closing-words.ts';
import { parseSearch, type TenderSearchFilters } from '../../shared/commands/parse-command.ts';
import { misspeltRegionRead, questionWords, readSentence } from '../../shared/commands/read-sentence.ts';
import { subcommandMeant } from '../../shared/commands/subcommands.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { inChannel, reply } from '../../shared/feature-context.ts';
import { SearchIds } from '../../shared/ids.ts';
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
import { helpMessage, sentenceMessage } from '../../shared/views/messages.ts';
import {
  clip,
  code,
  joinMrkdwn,
  literalText,
  type Mrkdwn,
  mrkdwn,
  text as plain,
  safeText,
} from '../../shared/views/mrkdwn.ts';
import {
  commandMeantMessage,
  correctedWords,
  misspeltRegionBlocks,
  namesNoDollar,
  searchMeantButton,
  searchOfferBlocks,
  sentenceMeantBlocks,
  unreadableDayBlocks,
  wordsMeantQuestion,
} from '../../shared/views/suggestions.ts';
import { type Block, button, contextLine, section } from '../../shared/views/tender-card.ts';
import { PAGE_SIZE, searchResultsMessage } from './views/search-messages.ts';

export type { SearchState };

/** `/tender search …`: the first page, to the caller alone. */
export async function searchCommand(
  context: FeatureContext,
  request: SlackRequest,
  text: string,
  /**
   * A sentence read as this search: the answer first shows the command, so people learn it, and
   * the sentence as typed (read again for a region misspelt when nothing is found).
   */
  options: { shownAs?: Mrkdwn; sentence?: string } = {},
): Promise<void> {
  const parsed = await parseWithRegions(context, request.teamId, text);
  if (!parsed.ok) {
    await reply(request, {
      // What was typed is quoted in code spans, escaped (parse-command.ts).
      text: parsed.problem,
      blocks: [
        // A sentence read as a search: the command it was read as, which the problem speaks of
        // (not "Searched:", since nothing was).
        ...(options.sentence !== undefined
          ? [contextLine(mrkdwn`Read as ${code(`/tender search ${text}`, 400)}; nothing was searched.`)]
          : []),
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
        // A region misspelt in a sentence ("cleaning in Londn"): the search in the region meant.
        ...(await meantInstead(context, request, options.sentence ?? text, Boolean(options.shownAs))),
      };
    },
    options.shownAs ? [contextLine(options.shownAs)] : [],
  );
}

/**
 * The blocks offering what `text` means as a sentence, when it reads as one (unless it was already
 * read so: `read`), else the search it means with a region misspelt in it mended (its words too,
 * when they are misspelt as well: `wordsMended`, so the words alone are not offered beside it).
 */
async function meantInstead(
  context: FeatureContext,
  request: SlackRequest,
  text: string,
  read: boolean,
): Promise<{ offers: Block[]; wordsMended?: true }> {
  // A closing day that could not be searched ("closing 31/02/2027") was searched as words: said first.
  const unread = unreadableDay(text, context.clock());
  if (unread) return { offers: unreadableDayBlocks(unread) };
  const regions = await regionsFor(context, request.teamId, 'typed').catch(() => []);
  const search = read ? null : readSentence(text, context.clock(), regions)?.search;
  if (search) return { offers: sentenceMeantBlocks(search) };
  const misspelt = misspeltRegionRead(text, context.clock(), regions);
  if (!misspelt) return { offers: [] };
  // Offered only when it finds tenders: a button that finds nothing again is no help.
  const meant = parseSearch(misspelt.search, context.clock(), { regions });
  if (!meant.ok) return { offers: [] };
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  const found = await client.tenders.search({ ...meant.filters, limit: 1 }).catch(() => null);
  if (!found) return { offers: [] };
  if (found.pagination.total > 0) return { offers: misspeltRegionBlocks(misspelt) };
  // "clenaing in Walse": the words misspelt too. Their correction in the region meant, if it finds any.
  const words =
    meant.filters.q && found.suggestions?.length ? correctedWords(meant.filters.q, found.suggestions) : null;
  const mended = words ? correctedWords(misspelt.search, found.suggestions ?? []) : null;
  if (!words || !mended) return { offers: [] };
  const again = await client.tenders.search({ ...meant.filters, q: words, limit: 1 }).catch(() => null);
  if (!again || again.pagination.total === 0) return { offers: [] };
  return {
    offers: misspeltRegionBlocks(
      { ...misspelt, search: mended },
      { typed: meant.filters.q ?? '', meant: words },
    ),
    wordsMended: true,
  };
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
  if (!read) {
    // "are there any cleaning tenders?": no filter in it, but the asking is no search word.
    const asked = questionWords(text);
    if (asked === '')
      return reply(
        request,
        sentenceMessage(
          mrkdwn`What should I look for? Ask with the words of the work, as in “are there any cleaning tenders in Wales?”, or send \`help\` for everything I do.`,
        ),
      );
    return searchCommand(
      context,
      request,
      asked ?? text,
      asked ? { shownAs: mrkdwn`Searched: ${code(`/tender search ${asked}`, 400)}`, sentence: text } : {},
    );
  }
  // "IT over $1m": which dollars is asked, with a button for each, as under /tender search.
  if (namesNoDollar(read.search)) {
    // A second region named is said too, as under a search that ran.
    const other = read.otherRegion ? [contextLine(otherRegionSentence(read.otherRegion))] : [];
    const blocks = [...sentenceMeantBlocks(read.search), ...other];
    return reply(request, { text: mrkdwn`Which dollars? “$” says no currency.`, blocks });
  }
  const year = read.dayOfNextYear
    ? mrkdwn` ${nextYearSentence(read.dayOfNextYear, context.clock())}`
    : mrkdwn``;
  const other = read.dayOfOtherWeekday;
  // Said after the year's sentence, which names the same words, without naming them again.
  const weekday = !other
    ? mrkdwn``
    : read.dayOfNextYear
      ? mrkdwn` It is a ${plain(other.weekday)}: the date was read, not the weekday.`
      : mrkdwn` Read “${literalText(other.typed)}” as ${plain(formatDayOf(endOfDay(other.day)))}, a ${plain(other.weekday)}: the date, not the weekday.`;
  return searchCommand(context, request, read.search, {
    shownAs: mrkdwn`Searched: ${code(`/tender search ${read.search}`, 400)}${year}${weekday}${read.otherRegion ? mrkdwn` ${otherRegionSentence(read.otherRegion)}` : mrkdwn``}`,
    sentence: text,
  });
}

/** A second region named: a search takes one, so the first is searched and the other offered. */
function otherRegionSentence(other: { read: string; name: string; search: string }): Mrkdwn {
  return mrkdwn`A search takes one region: this one is ${literalText(other.read)}. For ${literalText(other.name)}: ${code(`/tender search ${other.search}`, 400)}`;
}

/** A closing day typed without a year, read as next year's: said, so the year is never a surprise. */
function nextYearSentence(read: { typed: string; day: string }, now: Date): Mrkdwn {
  const day = endOfDay(read.day);
  const thisYears = new Date(day);
  thisYears.setUTCFullYear(day.getUTCFullYear() - 1);
  // "before 1 March" said on 1 March: this year's is today, not passed.
  const gone =
    formatISO(thisYears, { representation: 'date', ...IN_UTC }) ===
    formatISO(now, { representation: 'date', ...IN_UTC })
      ? 'is today'
      : 'has passed';
  return mrkdwn`Read “${literalText(read.typed)}” as ${plain(formatDayOf(day))}: no year was given, and ${plain(formatDayOf(thisYears))} ${plain(gone)}.`;
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
  /** The offers mend the words too: the words' correction alone is not offered beside them. */
  wordsMended?: true;
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
    heading: searchHeading(asTheDataSpellsIt(state.f, page.data), state.b, state.n, page.valueRule, {
      // Counted as closes> and closes< count their days (parse-command's deadlineWindow).
      today: formatISO(context.clock(), { representation: 'date', ...IN_UTC }),
    }),
    // A direct message with Tenderbot (D…) has no channel to share a card into.
    canShare: inChannel(request),
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
    const why = await whenEmpty().catch(() => NOTHING_TO_SAY);
    // A word that found nothing, and the word of the data it most likely meant: offered as a search.
    const corrected =
      state.f.q && page.suggestions?.length && !why.wordsMended
        ? correctedWords(state.f.q, page.suggestions)
        : null;
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
 * (with a button running it on the same words). A sentence that reads as a search (`/tender school
 * catering in Wales over 100k`: a region, an amount, a closing day) is run, as in a direct message,
 * the command it ran said first. Other words get the help card, under the search they make.
 */
export async function unknownCommand(
  context: FeatureContext,
  request: SlackRequest,
  word: string,
  rest: string,
): Promise<void> {
  const meant = subcommandMeant(word);
  if (meant) return reply(request, commandMeantMessage(word, meant, rest));
  const typed = rest ? `${word} ${rest}` : word;
  if ((await sentenceSearch(context, request, typed)) !== null)
    return searchSentence(context, request, typed);
  return reply(request, helpMessage(word, searchOfferBlocks(typed, typed)));
}

/** A guest's answers offer only what a guest may use (every write refuses them). */
export async function isGuest(context: FeatureContext, request: SlackRequest): Promise<boolean> {
  return (await context.users.facts(request.userId, request.teamId)).isGuest;
}

/**
 * The filters with their region as the tenders found spell it (`region:london` is said as London):
 * a heading repeats what the data calls it, not the typing. Unchanged when no tender found names it.
 */
function asTheDataSpellsIt(filters: TenderSearchFilters, tenders: readonly { region?: string | null }[]) {
  const typed = filters.region?.toLowerCase();
  const spelt = typed && tenders.find((tender) => tender.region?.toLowerCase() === typed)?.region;
  return spelt ? { ...filters, region: spelt } : filters;
}
