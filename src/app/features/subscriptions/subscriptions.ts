import { randomBytes } from 'node:crypto';
import { NotFoundError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import { ID_MAX } from '../../../contract/schemas.ts';
import { cutText } from '../../../shared/cut-text.ts';
import { CHANNEL_GONE_REASONS } from '../../adapters/slack-errors.ts';
import {
  type ClosesDays,
  SEARCH_WORDS_MAX,
  type TenderSearchFilters,
} from '../../shared/commands/parse-command.ts';
import { readableAsSentence, readSentence } from '../../shared/commands/read-sentence.ts';
import type { RegionRead } from '../../shared/commands/region-words.ts';
import { filtersOf } from '../../shared/commands/saved-search-filters.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests, reply } from '../../shared/feature-context.ts';
import { parseWithRegions, regionsFor } from '../../shared/regions.ts';
import {
  boundsCurrency,
  keepValueRule,
  keptValueRules,
  NO_VALUE_RULES,
  VALUE_RULE_CALL,
} from '../../shared/value-rules.ts';
import { SearchFiltersValue } from '../../shared/values/button-values.ts';
import { describeSearch, regionReadSentence } from '../../shared/views/describe-search.ts';
import {
  channelLink,
  code,
  literalText,
  type Mrkdwn,
  mention,
  mrkdwn,
  text as plain,
  safeText,
} from '../../shared/views/mrkdwn.ts';
import { commandOffer, correctedWords } from '../../shared/views/suggestions.ts';
import { section } from '../../shared/views/tender-card.ts';
import type { Subscription } from '../../storage/bot-store.ts';
import type { ChannelSubscribed, ChannelSubscription } from '../../storage/subscription-store.ts';
import { resolveBidId } from '../bids/index.ts';
import { subscriptionSummary } from './describe.ts';
import { describeSchedule, formatLocal, knownTimeZone, nextRunAfter } from './schedule.ts';
import { alikeSentence, changeSentence, subscribingAgain } from './subscribe-again.ts';
import { misspeltFeedMessage, readSchedule, subscribeMeantMessage, USAGE_OF } from './subscribe-words.ts';
import { bidsOf, listSubscriptions, say, unsubscribe } from './subscription-list.ts';

export type SubscriptionSubcommand = 'subscribe' | 'subscriptions' | 'unsubscribe';

/** A region filter as typed, quoted or not: the one a misspelt region's offer replaces. */
const REGION_TYPED = /region:(?:["“][^"”]*["”]|[^\s"“]+)/i;

/**
 * `/tender subscribe …`, `/tender subscriptions`, `/tender unsubscribe <id>`. `subscribed` is told
 * the subscription a subscribe added, once its confirmation is posted (the Home tab names it).
 */
export async function subscriptionCommand(
  context: FeatureContext,
  request: SlackRequest,
  kind: SubscriptionSubcommand,
  rest: string,
  subscribed?: (made: Subscription) => void,
): Promise<void> {
  if (kind === 'subscriptions') return listSubscriptions(context, request, false);
  if (kind === 'unsubscribe') {
    const id = rest.trim().split(/\s+/)[0] ?? '';
    if (!id)
      return say(
        request,
        mrkdwn`Which subscription? \`/tender subscriptions\` lists this channel’s, with their ids.`,
      );
    return unsubscribe(context, request, id, false);
  }
  return subscribe(context, request, rest, subscribed);
}

async function subscribe(
  context: FeatureContext,
  request: SlackRequest,
  rest: string,
  subscribed?: (made: Subscription) => void,
): Promise<void> {
  if (await refuseGuests(context, request, 'subscribe this channel to summaries, feeds or reminders')) return;
  const words = rest.trim().split(/\s+/).filter(Boolean);
  const kind = (words.shift() ?? '').toLowerCase();
  if (kind !== 'pipeline' && kind !== 'search' && kind !== 'deadlines')
    return reply(request, subscribeMeantMessage(rest.trim()));
  // A bid's reference (`search BID-3 weekly`) is no word a tender holds: its summaries were meant,
  // asked before the schedule is read (`weekly` is no feed's), and offered with the schedule typed.
  const [first] = words;
  if (kind === 'search' && first && /^bid-?\d{1,9}$/i.test(first)) {
    const command = cutText(`subscribe pipeline ${words.join(' ')}`, 200);
    const question = mrkdwn`${code(first, 20)} is a bid’s reference, not words to look for in new tenders. Did you mean ${code(`/tender ${command}`, 220)}, its progress in this channel?`;
    const after = words.slice(1);
    const asPipeline = readSchedule('pipeline', after);
    // Pressed, a schedule a summary cannot have (`hourly`), or other words, would only be refused:
    // said, no button.
    if ('problem' in asPipeline || after.length > 0)
      return say(
        request,
        mrkdwn`${question}${'problem' in asPipeline ? mrkdwn` ${asPipeline.problem}` : mrkdwn``}`,
      );
    return reply(request, {
      text: question,
      blocks: commandOffer(question, `Run /tender ${cutText(command, 50)}`, command),
    });
  }
  const scheduleRead = readSchedule(kind, words);
  if ('problem' in scheduleRead) return say(request, scheduleRead.problem);
  const { cadence, localTime } = scheduleRead;

  // Looked up, and later posted, with the subscriber's own key where they linked one.
  const { client, source } = await context.clients.forPerson(request.teamId, request.userId);
  const keyName = source === 'personal' ? 'your own key' : 'this workspace’s key';
  let target: object;
  // A feed's value bounds, checked with the service once it is known to be no duplicate.
  let bounded: TenderSearchFilters | null = null;
  let regionRead: RegionRead | undefined;
  // A feed of typed words, checked with the service when new: a misspelt word is asked about before
  // it is followed, and words that match no tender today (no misspelling) are said in the confirmation.
  let wordsFeed: TenderSearchFilters | null = null;
  let noneToday = false;
  if (kind === 'pipeline') {
    const typed = words[0];
    if (!typed || words.length > 1)
      return say(request, mrkdwn`Give one bid, by its reference (like \`BID-7\`). ${USAGE_OF.pipeline}`);
    const found = await resolveBidId(context, request.teamId, typed, client);
    if ('problem' in found) return say(request, found.problem);
    const id = found.id;
    try {
      const pipeline = await client.pipelines.get(id);
      // An archived bid changes no more: summaries of it would only repeat that.
      if (pipeline.archived)
        return say(
          request,
          mrkdwn`*${safeText(pipeline.name, 200)}* is archived, so it changes no more and its summaries would have nothing to say. Restore it first with ${code(`/tender pipeline restore ${typed}`, 300)}, then subscribe.`,
        );
      target = { p: pipeline.id, n: cutText(pipeline.name, 300) };
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      return say(
        request,
        mrkdwn`No bid ${code(typed, 300)} can be seen with ${plain(keyName)}. \`/tender pipelines\` lists the bids, each with its reference.`,
      );
    }
  } else if (kind === 'search') {
    const found = await searchTarget(context, request, words.join(' '));
    // A misspelt region: the same subscribe with the region meant, one click away.
    if ('problem' in found && found.regionMeant) {
      const regionMended = `region:"${found.regionMeant}"`;
      let mended = rest.trim().replace(REGION_TYPED, regionMended);
      let problem = found.problem;
      // The words checked in the region meant too, so one click mends both (a trial's
      // `clening region:Londn` took two: the region, then "Did you mean cleaning?").
      const wordsMeant = await misspeltWords(
        context,
        request,
        client,
        words.join(' ').replace(REGION_TYPED, regionMended),
      );
      const both = wordsMeant && correctedWords(mended, wordsMeant.suggestions);
      if (wordsMeant && both) {
        mended = both;
        problem = mrkdwn`${problem} No tender there matches “${safeText(wordsMeant.typed, 200)}” today either: did you mean *${safeText(wordsMeant.meant, 200)}*?`;
      }
      const command = `subscribe ${mended}`;
      return reply(request, {
        text: problem,
        blocks: commandOffer(problem, `Run /tender ${cutText(command, 50)}`, command),
      });
    }
    if ('problem' in found) return say(request, found.problem);
    // A feed of typed words (not a saved search) is checked against what matches today.
    if (!found.target.ss && found.target.f.q) wordsFeed = found.target.f;
    target = found.target;
    regionRead = found.regionRead;
    if (boundsCurrency(found.target.f) !== null) bounded = found.target.f;
  } else {
    const text = words.join(' ');
    const days = text === '' ? 7 : Number(text);
    if (!Number.isInteger(days) || days < 1 || days > 90)
      return say(
        request,
        mrkdwn`Give the days ahead as a whole number from 1 to 90, for example \`/tender subscribe deadlines 14\`.`,
      );
    target = { days };
  }

  const now = context.clock();
  const { user } = await request.slack.users.info({ user: request.userId });
  const schedule = { cadence, localTime, timeZone: knownTimeZone(user?.tz) };
  const nextRunAt = nextRunAfter(schedule, now);
  const subscription: Subscription = {
    id: newSubscriptionId(),
    teamId: request.teamId,
    channelId: request.channelId,
    kind,
    target: JSON.stringify(target),
    ...schedule,
    createdBy: request.userId,
    createdAt: now,
    pausedReason: null,
    nextRunAt,
    cursor: null,
    skippedCount: 0,
  };
  // A channel follows each thing once per key it is read with (a person's own key reads their own
  // bookmarks and bids): subscribing again keeps or changes the one there (subscribingAgain).
  const readsAsMine = ({ subscription: existing, creatorHasOwnKey }: ChannelSubscription) =>
    existing.createdBy === request.userId || (source !== 'personal' && !creatorHasOwnKey);
  // Bounds are checked with the service for a new feed only (a search it refuses is not subscribed),
  // and its answer names the rule the posts will apply: the confirmation says it, as the posts'
  // heading will. Only a check, so a short one: a slow service is said to be slow (a timeout) rather
  // than waited for. Whether the feed is new is read before asking, and decided again when stored.
  let rules = keptValueRules(context, client, bounded ? [bounded] : []);
  const checked = bounded ?? wordsFeed;
  if (checked) {
    const seen = await channelAsSeen(context, request.teamId, request.channelId);
    if ('create' in subscribingAgain(subscription, seen, readsAsMine).decision) {
      // One brief call for both checks; only the bounds' check refuses the feed when it fails.
      const page = bounded
        ? await client.tenders.search({ ...bounded, limit: 1 }, VALUE_RULE_CALL)
        : await client.tenders.search({ ...checked, limit: 1 }, VALUE_RULE_CALL).catch(() => null);
      if (bounded) {
        rules = NO_VALUE_RULES;
        if (page?.valueRule) {
          keepValueRule(context, client, page.valueRule);
          rules = { byCurrency: new Map([[page.valueRule.currency, page.valueRule]]) };
        }
      }
      if (wordsFeed?.q && page?.pagination.total === 0) {
        const suggestions = page.suggestions ?? [];
        const command = correctedWords(rest.trim(), suggestions);
        if (command)
          return reply(
            request,
            misspeltFeedMessage(wordsFeed.q, correctedWords(wordsFeed.q, suggestions), command),
          );
        noneToday = true;
      }
    }
  }
  // Decided and written in one transaction of the store, so two subscribes at once store one; a
  // taken id (or one changed meanwhile) is decided again.
  let done: ChannelSubscribed | null = null;
  let alike: Subscription[] = [];
  for (let attempt = 0; !done; attempt++) {
    if (attempt > 5) throw new Error('could not subscribe the channel: ids taken or changed meanwhile');
    if (attempt > 0) subscription.id = newSubscriptionId();
    done = await context.store.subscribeChannel(request.teamId, request.channelId, (existing) => {
      const again = subscribingAgain(subscription, existing, readsAsMine);
      alike = again.alike;
      return again.decision;
    });
  }
  if ('keep' in done) {
    const kept = done.keep;
    return say(
      request,
      // The channel named: from the Home tab this is said in a direct message, where "this channel" is another.
      mrkdwn`${channelLink(request.channelId)} already has that subscription: *${subscriptionSummary(kept, rules, await bidsOf(context, request.teamId, [kept]))}*, ${plain(describeSchedule(kept))} (${code(kept.id)})${kept.pausedReason ? mrkdwn`. It is paused (${safeText(kept.pausedReason, 300)}): *Send now* in \`/tender subscriptions\` starts it again` : mrkdwn``}.${alikeSentence(alike)} \`/tender subscriptions\` in ${channelLink(request.channelId)} lists its subscriptions, with Send now and Unsubscribe.`,
    );
  }
  const lists = mrkdwn`\`/tender subscriptions\` lists this channel’s subscriptions, with Send now and Unsubscribe.`;
  let text: Mrkdwn;
  let confirmation: Mrkdwn;
  if ('change' in done) {
    const { change, before } = done;
    const what = subscriptionSummary(change, rules);
    const when = change.pausedReason
      ? mrkdwn`It is paused (${safeText(change.pausedReason, 300)}): *Send now* in \`/tender subscriptions\` starts it again.`
      : mrkdwn`Next post ${plain(formatLocal(change.nextRunAt, change.timeZone))}.`;
    // Only deadline reminders are changed rather than added (subscribe-again.ts).
    const changed = mrkdwn`this channel’s deadline reminders (${code(change.id)}) rather than add others`;
    text = mrkdwn`Changed: ${what}`;
    confirmation = mrkdwn`${mention(request.userId)} changed ${changed}: ${changeSentence(before, change)}. ${when}${alikeSentence(alike)} ${lists}`;
  } else {
    const what = subscriptionSummary(subscription, rules);
    // Whose bookmarks a reminder follows, and whose view of a bid a summary shows, is said once here.
    const whose =
      kind === 'deadlines'
        ? source === 'personal'
          ? mrkdwn` Reminders follow ${mention(request.userId)}’s own bookmarks and bids.`
          : mrkdwn` Reminders follow the workspace’s bookmarks and bids (the list \`/tender bookmarks\` shows everyone without a key of their own).`
        : source === 'personal'
          ? mrkdwn` Posts are read with ${mention(request.userId)}’s own key.`
          : mrkdwn``;
    text = mrkdwn`Subscribed: ${what}`;
    confirmation = mrkdwn`${mention(request.userId)} subscribed this channel: *${what}*, ${plain(describeSchedule(schedule))}. First post ${plain(formatLocal(nextRunAt, schedule.timeZone))}.${whose}${regionRead ? mrkdwn` ${regionReadSentence(regionRead)}` : mrkdwn``}${noneToday ? mrkdwn` No tender matches it today: it posts when one is published.` : mrkdwn``} ${lists}`;
  }
  // Stored before it is announced, so a `/tender subscriptions` right after the confirmation lists
  // it; if the confirmation cannot be posted in the channel, it is taken back: nothing changed.
  try {
    await request.slack.chat.postMessage({
      channel: request.channelId,
      text,
      blocks: [section(confirmation)],
      unfurl_links: false,
    });
  } catch (error) {
    await takeBack(context, done);
    const code = (error as { data?: { error?: string } }).data?.error ?? '';
    if (code in CHANNEL_GONE_REASONS)
      return say(
        request,
        mrkdwn`Tenderbot is not in ${channelLink(request.channelId)}, so it cannot post there. Invite it with \`/invite @Tenderbot\` in the channel, then subscribe again.`,
      );
    throw error;
  }
  if ('create' in done) subscribed?.(done.create);
}

/** Undoes a subscribe whose confirmation could not be posted: the new one removed, the changed one as it was. */
async function takeBack(
  context: FeatureContext,
  done: { create: Subscription } | { change: Subscription; before: Subscription },
): Promise<void> {
  if ('create' in done) {
    await context.store.removeSubscription(done.create.teamId, done.create.id);
    return;
  }
  const { before } = done;
  await context.store.subscribeChannel(before.teamId, before.channelId, (existing) =>
    existing.some((each) => each.subscription.id === before.id) ? { change: before } : { keep: before },
  );
}

/**
 * The channel's subscriptions as subscribeChannel shows them, read outside its transaction (to know
 * whether a feed is new before asking the service about it).
 */
async function channelAsSeen(
  context: FeatureContext,
  teamId: string,
  channelId: string,
): Promise<ChannelSubscription[]> {
  const subscriptions = await context.store.channelSubscriptions(teamId, channelId);
  const ownKey = new Map<string, boolean>();
  for (const { createdBy } of subscriptions)
    if (!ownKey.has(createdBy))
      ownKey.set(createdBy, (await context.store.getPersonalKey(teamId, createdBy)) !== null);
  return subscriptions.map((subscription) => ({
    subscription,
    creatorHasOwnKey: ownKey.get(subscription.createdBy) ?? false,
  }));
}

/** A saved search by its id, or words and filters as `/tender search` reads them. */
async function searchTarget(
  context: FeatureContext,
  request: SlackRequest,
  text: string,
): Promise<
  | { target: { f: TenderSearchFilters; d: string; ss?: string; w?: ClosesDays }; regionRead?: RegionRead }
  | { problem: Mrkdwn; regionMeant?: string }
> {
  const { client } = await context.clients.forPerson(request.teamId, request.userId);
  if (text === '') return { problem: mrkdwn`Which search? ${USAGE_OF.search}` };
  // One word that could be an id: a saved search's first (a longer word cannot be one).
  if (/^\S+$/.test(text) && !text.includes(':') && text.length <= ID_MAX) {
    try {
      const saved = await client.savedSearches.get(text);
      // Read as every other run of a saved search reads it (a value bound's currency in any case);
      // a currency the service cannot compare in is refused here, not followed as pounds.
      const filters = SearchFiltersValue.safeParse(filtersOf(saved));
      if (!filters.success)
        return {
          problem: mrkdwn`The saved search “${plain(saved.name)}” uses filters Tenderbot cannot follow; subscribe with words and filters instead.`,
        };
      return {
        target: { f: filters.data, d: `the saved search “${safeText(saved.name, 200)}”`, ss: saved.id },
      };
    } catch (error) {
      // Not a saved search's id: read as words.
      if (!(error instanceof NotFoundError)) throw error;
    }
  }
  // Written as a sentence ("cleaning in Wales over £100k"): followed as the same sentence searches
  // (a region, an amount, a closing window), not as those words; the confirmation describes it.
  // Asked for only when the words could be a sentence: a search typed with filters needs none.
  const regions = readableAsSentence(text)
    ? await regionsFor(context, request.teamId, 'typed').catch(() => [])
    : [];
  const sentence = readSentence(text, context.clock(), regions);
  // A feed runs for good: a closing day would be counted again from each post ("before Christmas"
  // read as 28 days, for ever), and it follows one region. Said, with what it does take.
  if (sentence?.closingDay)
    return {
      problem: mrkdwn`A feed posts new tenders for as long as it runs, so it cannot keep a closing day: it would count it again from every post. Subscribe without it, or with a window counted from each post, such as ${code('closes<30d')} or “closing within 2 weeks”.`,
    };
  if (sentence?.otherRegion)
    return {
      problem: mrkdwn`A feed follows one region: subscribe each on its own, ${code(`/tender subscribe search ${sentence.search}`, 300)} and ${code(`/tender subscribe search ${sentence.otherRegion.search}`, 300)}.`,
    };
  const searched = sentence?.search ?? text;
  // A feed follows what it was read as for good: the regions are asked for even after a failure,
  // and a region they would decide is refused while they cannot be read.
  const parsed = await parseWithRegions(context, request.teamId, searched, {
    wanted: 'fresh',
    refuseUnread: true,
  });
  if (!parsed.ok)
    return {
      problem: mrkdwn`${parsed.problem} See \`/tender help\`.`,
      ...(parsed.regionMeant ? { regionMeant: parsed.regionMeant } : {}),
    };
  // A feed follows what it says it follows: words past what a search takes are refused, not cut.
  if (parsed.wordsCut)
    return {
      problem: mrkdwn`Those words are more than a search takes (${SEARCH_WORDS_MAX} characters at most). Use fewer words, then subscribe again.`,
    };
  const filters = { ...parsed.filters };
  if (parsed.buyerName) {
    const buyers = await client.buyers.list({ q: parsed.buyerName, limit: 1 });
    const buyer = buyers.data[0];
    if (!buyer) return { problem: mrkdwn`No buyer is called “${literalText(parsed.buyerName)}”.` };
    filters.buyerId = buyer.id;
  }
  const checked = SearchFiltersValue.safeParse(filters);
  if (!checked.success) return { problem: mrkdwn`That search is too long to follow; use fewer words.` };
  // How a region typed without quotes was read is said in the confirmation, as a search says it.
  const read = parsed.regionRead ? { regionRead: parsed.regionRead } : {};
  const days = parsed.closesDays;
  if (!days) return { target: { f: checked.data, d: describeSearch(checked.data) }, ...read };
  // The deadlines are counted from each post: the description says so, not the dates of today.
  const { deadlineFrom: _from, deadlineTo: _to, ...rest } = checked.data;
  const described = describeSearch(rest);
  const window =
    days.within !== undefined
      ? days.after !== undefined
        ? `closing in ${days.after} to ${days.within} days`
        : `closing within ${days.within} days`
      : `closing in more than ${days.after} days`;
  return {
    target: { f: checked.data, d: described === 'everything' ? window : `${described}, ${window}`, w: days },
    ...read,
  };
}

/** `s-` and six letters and digits that cannot be misread (no 0/o, 1/l). */
function newSubscriptionId(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  return `s-${[...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

/**
 * The words of a feed that match nothing today and the word the data most likely meant, from one
 * brief search; null when they match, nothing is near, or the service could not be asked.
 */
async function misspeltWords(
  context: FeatureContext,
  request: SlackRequest,
  client: ProcurementClient,
  searchText: string,
): Promise<{
  typed: string;
  meant: string;
  suggestions: readonly { word: string; correction: string }[];
} | null> {
  const read = await searchTarget(context, request, searchText).catch(() => null);
  if (!read || 'problem' in read || read.target.ss || !read.target.f.q) return null;
  const page = await client.tenders.search({ ...read.target.f, limit: 1 }, VALUE_RULE_CALL).catch(() => null);
  if (!page || page.pagination.total > 0) return null;
  const suggestions = page.suggestions ?? [];
  const meant = correctedWords(read.target.f.q, suggestions);
  return meant ? { typed: read.target.f.q, meant, suggestions } : null;
}
