import { randomUUID } from 'node:crypto';
import { deadlineWindow } from '../../shared/commands/parse-command.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests, reply } from '../../shared/feature-context.ts';
import { firstWithin } from '../../shared/repeat-guard.ts';
import type { Message } from '../../shared/views/messages.ts';
import { channelLink, code, lowerFirst, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { type Block, contextLine, section } from '../../shared/views/tender-card.ts';
import type { Subscription } from '../../storage/bot-store.ts';
import { bidReferences } from '../bids/index.ts';
import { tenderbotIsOut } from './channel-access.ts';
import { buildDelivery, feedWindowStart, readerOf, SearchTarget } from './content.ts';
import { subscriptionSummary } from './describe.ts';
import { formatLocal, nextRunAfter } from './schedule.ts';
import { bidsOf, noSuchSubscription, postsElsewhere, say } from './subscription-list.ts';
import { newestMatchingBlocks } from './views/subscription-messages.ts';

/** Presses of one subscription's "Send now" within this are one press. */
const REPEAT_SEND_MS = 60_000;

/**
 * "Send now": a real post of the current summary, recorded like any scheduled one; resumes a
 * paused one. A feed or reminder with nothing new posts nothing in the channel: the presser alone
 * sees what the post would have said.
 */
export async function sendNow(context: FeatureContext, request: SlackRequest, id: string): Promise<void> {
  if (await refuseGuests(context, request, 'send subscription posts')) return;
  const subscription = await context.store.getSubscription(request.teamId, id);
  if (!subscription) return say(request, noSuchSubscription(id));
  const elsewhere = await postsElsewhere(context, request, subscription, 'send now');
  if (elsewhere) {
    await reply(request, { text: elsewhere, blocks: [section(elsewhere)] });
    return;
  }
  const out = await tenderbotIsOut(request, subscription.channelId);
  if (out) {
    // Started again now, a paused one would only stop again at its first post (and say so by
    // direct message); a running one would find nothing to say, or fail, where nobody sees it.
    const stays = subscription.pausedReason
      ? mrkdwn`this subscription stays paused`
      : mrkdwn`nothing can be posted there`;
    const sentence =
      out === 'archived'
        ? mrkdwn`${channelLink(subscription.channelId)} is archived, so ${stays}${subscription.pausedReason ? mrkdwn`: nothing can be posted there` : mrkdwn``}. ${code(`/tender unsubscribe ${subscription.id}`)} removes it.`
        : mrkdwn`Tenderbot is not in ${channelLink(subscription.channelId)}, so ${stays}: invite it there (\`/invite @Tenderbot\`), then press *Send now* again.`;
    await reply(request, { text: sentence, blocks: [section(sentence)] });
    return;
  }
  const now = context.clock();
  const started = subscription.pausedReason ? mrkdwn`Started again. ` : mrkdwn``;
  if (subscription.pausedReason)
    await context.store.resumeSubscription(request.teamId, id, nextRunAfter(subscription, now));
  const nothingNew = await wouldSay(context, subscription, now);
  if (nothingNew) {
    const sentence = mrkdwn`${started}Nothing new to post, so ${channelLink(subscription.channelId)} got nothing. It would have said:`;
    await reply(request, {
      text: sentence,
      blocks: [
        section(sentence),
        ...nothingNew.blocks,
        ...(await newestMatching(context, subscription, now)),
        contextLine(mrkdwn`Only you can see this.`),
      ],
    });
    return;
  }
  // A second press within the minute (a double click, or a third while the first posts) posts nothing more.
  const claim = await firstWithin(context.store, `send-now:${request.teamId}:${id}`, REPEAT_SEND_MS, now);
  if (!claim.first) {
    const sentence = mrkdwn`${started}A post of ${lowerFirst(subscriptionSummary(subscription, undefined, await bidsOf(context, request.teamId, [subscription])))} was started in ${channelLink(subscription.channelId)} moments ago, so no second one was made.`;
    await reply(request, { text: sentence, blocks: [section(sentence)] });
    return;
  }
  // Planned only while the subscription is there: one unsubscribed since it was read plans nothing.
  if (!(await context.store.addManualDelivery({ id: randomUUID(), subscriptionId: id, dueAt: now })))
    return say(request, noSuchSubscription(id));
  context.scheduler?.wake();
  const sentence = mrkdwn`${started}Posting ${lowerFirst(subscriptionSummary(subscription, undefined, await bidsOf(context, request.teamId, [subscription])))} in ${channelLink(subscription.channelId)} now.`;
  await reply(request, { text: sentence, blocks: [section(sentence)] });
}

/**
 * What a post made now would say when it has nothing new (a feed with no new tender, reminders
 * with nothing coming due that was not reminded), read as the scheduler reads it; null when it
 * has something to post (or could not be read: the post itself then tries, and retries).
 */
async function wouldSay(
  context: FeatureContext,
  subscription: Subscription,
  now: Date,
): Promise<Message | null> {
  // A bid's summary always says where the bid stands: it is never "nothing new".
  if (subscription.kind === 'pipeline') return null;
  try {
    const { client, source } = await context.clients.forPerson(subscription.teamId, subscription.createdBy);
    const exclude = new Set<string>();
    // Items already posted (reminded at this threshold) do not count as new: read again without them.
    for (let attempt = 0; attempt < 2; attempt++) {
      const built = await buildDelivery({
        client,
        reader: readerOf(subscription, source),
        subscription,
        delivery: previewDelivery(subscription, now),
        now,
        exclude,
        delivered: (keys) => context.store.deliveredItems(subscription.id, keys),
        bidReferences: (ids) => bidReferences(context, subscription.teamId, ids),
      });
      if (built.kind === 'empty') return built.said ?? null;
      const posted = await context.store.deliveredItems(subscription.id, built.frozen.itemKeys);
      if (posted.size === 0) return null;
      for (const key of posted) exclude.add(key);
    }
    return null;
  } catch (error) {
    context.logger.warn({ err: error, subscriptionId: subscription.id }, 'could not preview a Send now');
    return null;
  }
}

/** How many of the newest matching tenders a feed's "nothing new" preview lists. */
const NEWEST_SHOWN = 3;

/**
 * For a feed with nothing new: the newest tenders it matches from before its window, so the
 * presser sees what it follows (a new feed has nothing new until the next tender is published).
 * Nothing when they cannot be read: the preview stands without them.
 */
async function newestMatching(
  context: FeatureContext,
  subscription: Subscription,
  now: Date,
): Promise<Block[]> {
  if (subscription.kind !== 'search') return [];
  try {
    const target = SearchTarget.parse(JSON.parse(subscription.target));
    const windowStart = feedWindowStart(subscription);
    const { client } = await context.clients.forPerson(subscription.teamId, subscription.createdBy);
    const page = await client.tenders.search({
      ...target.f,
      ...(target.w ? deadlineWindow(target.w, now) : {}),
      publishedTo: windowStart.toISOString(),
      limit: NEWEST_SHOWN,
    });
    return newestMatchingBlocks({
      tenders: page.data,
      total: page.pagination.total,
      since: formatLocal(windowStart, subscription.timeZone),
      now,
    });
  } catch (error) {
    context.logger.warn(
      { err: error, subscriptionId: subscription.id },
      'could not read what a feed follows',
    );
    return [];
  }
}

/** A delivery that is never stored: what building a post needs to know of it (a preview, or a test's). */
export function previewDelivery(subscription: Subscription, now: Date) {
  return {
    id: randomUUID(),
    subscriptionId: subscription.id,
    teamId: subscription.teamId,
    channelId: subscription.channelId,
    dueAt: now,
    manual: true,
    state: 'pending' as const,
    leaseOwner: null,
    leaseUntil: null,
    notBefore: now,
    attempts: 0,
    frozen: null,
    postedTs: [],
    attemptingPart: null,
    attemptAt: null,
    attemptUntil: null,
    settleLatest: null,
    outcome: null,
  };
}
