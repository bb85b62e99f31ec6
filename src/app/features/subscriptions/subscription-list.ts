import { z } from 'zod';
import type { WorkspaceClients } from '../../adapters/workspace-clients.ts';
import { KEEP_DELIVERIES_MS } from '../../delivery/delivery-queue.ts';
import type { TenderSearchFilters } from '../../shared/commands/parse-command.ts';
import type { FeatureContext, SlackRequest } from '../../shared/feature-context.ts';
import { refuseGuests, reply, StaleValueError } from '../../shared/feature-context.ts';
import {
  boundsCurrency,
  keptValueRules,
  NO_VALUE_RULES,
  readValueRules,
  unreadValueRules,
  type ValueRules,
} from '../../shared/value-rules.ts';
import type { Message } from '../../shared/views/messages.ts';
import { channelLink, code, lowerFirst, type Mrkdwn, mention, mrkdwn } from '../../shared/views/mrkdwn.ts';
import { section } from '../../shared/views/tender-card.ts';
import type { BidReferenceStore } from '../../storage/bid-reference-store.ts';
import type { Subscription } from '../../storage/bot-store.ts';
import { bidReferencesIn } from '../bids/index.ts';
import { type ChannelOut, tenderbotIsOut } from './channel-access.ts';
import { FEED_READ_LIMIT, type Frozen } from './content.ts';
import { followedBid, followedSearch, subscriptionSummary } from './describe.ts';
import { describeSchedule, formatLocal } from './schedule.ts';
import {
  LIST_LIMIT,
  type ListedTender,
  MORE_PAGE,
  moreTendersMessage,
  subscriptionsListMessage,
} from './views/subscription-messages.ts';

/** One sentence to the person who typed the command (in place of the last one when `replace`). */
export const say = (request: SlackRequest, sentence: Mrkdwn, replace = false) =>
  reply(request, { text: sentence, blocks: [section(sentence)] }, replace);

/** `/tender subscriptions`: the channel's subscriptions, to the person who asked. */
export async function listSubscriptions(
  context: FeatureContext,
  request: SlackRequest,
  replace: boolean,
): Promise<void> {
  const [subscriptions, facts, out] = await Promise.all([
    context.store.channelSubscriptions(request.teamId, request.channelId),
    context.users.facts(request.userId, request.teamId),
    // Subscriptions listed as running where nothing can be posted would look healthy: said above them.
    tenderbotIsOut(request, request.channelId),
  ]);
  await reply(
    request,
    await listMessage(context, request.teamId, request.channelId, subscriptions, facts.isGuest, out),
    replace,
  );
}

/**
 * The list of `subscriptions` in `channelId`. Feeds with value bounds say the rule their posts will
 * apply; when it cannot be read just now the list is drawn all the same, and says so.
 */
async function listMessage(
  context: FeatureContext,
  teamId: string,
  channelId: string,
  subscriptions: Subscription[],
  readOnly = false,
  out: ChannelOut | null = null,
): Promise<Message> {
  const listed = subscriptions.slice(0, LIST_LIMIT);
  const [rulesByCreator, bids] = await Promise.all([
    valueRulesOf(context, teamId, listed),
    bidsOf(context, teamId, listed),
  ]);
  return subscriptionsListMessage(
    subscriptions.map((subscription) => ({
      subscription,
      what: subscriptionSummary(
        subscription,
        rulesByCreator.get(subscription.createdBy) ?? NO_VALUE_RULES,
        bids,
      ),
      when: describeSchedule(subscription),
      next: formatLocal(subscription.nextRunAt, subscription.timeZone),
    })),
    channelId,
    readOnly,
    out,
  );
}

/** A bid a list waits for at most: past it, the name kept when subscribed is shown. */
const BID_READ_TIMEOUT_MS = 1500;

/**
 * The bids the summaries among `subscriptions` follow: each one's reference (`BID-7`), and its name
 * as it is now (renamed since subscribing, it would be listed by its old one), read with the key
 * its posts are read with; a bid that cannot be read now keeps the name kept when subscribed.
 */
export async function bidsOf(
  context: {
    clients: Pick<WorkspaceClients, 'forPerson'>;
    // Optional: the scheduler's store may give no references (the bids are then named alone).
    store: Partial<Pick<BidReferenceStore, 'bidReferenceNumbers'>>;
  },
  teamId: string,
  subscriptions: readonly Subscription[],
): Promise<Map<string, { name?: string; reference?: string }>> {
  const followed = subscriptions.flatMap((subscription) => {
    const bidId = followedBid(subscription);
    return bidId ? [{ bidId, createdBy: subscription.createdBy }] : [];
  });
  const bids = new Map<string, { name?: string; reference?: string }>();
  if (followed.length === 0) return bids;
  const [references] = await Promise.all([
    (context.store.bidReferenceNumbers
      ? bidReferencesIn(
          { bidReferenceNumbers: context.store.bidReferenceNumbers },
          teamId,
        )([...new Set(followed.map((each) => each.bidId))])
      : Promise.resolve(new Map<string, string>())
    ).catch(() => new Map<string, string>()),
    Promise.all(
      followed.map(async ({ bidId, createdBy }) => {
        try {
          const { client } = await context.clients.forPerson(teamId, createdBy);
          const bid = await client.pipelines.get(bidId, { timeoutMs: BID_READ_TIMEOUT_MS, maxRetries: 0 });
          bids.set(bidId, { ...bids.get(bidId), name: bid.name });
        } catch {
          // Gone, not shared, or slow: listed by the name kept when subscribed.
        }
      }),
    ),
  ]);
  for (const [bidId, reference] of references) bids.set(bidId, { ...bids.get(bidId), reference });
  return bids;
}

/**
 * The rules the value bounds of `subscriptions`' feeds are compared by, by who made each feed: read
 * through the client its posts are read with (the creator's own key, else the workspace's, each
 * maybe of another service), so a feed is listed with the rates its posts will use. Rules are kept
 * per service a while and read within a short budget (readValueRules); nothing is asked when no
 * feed has bounds. A failure is said as such, not thrown: the list is drawn all the same.
 */
async function valueRulesOf(
  context: FeatureContext,
  teamId: string,
  subscriptions: Subscription[],
): Promise<Map<string, ValueRules>> {
  const searchesByCreator = new Map<string, TenderSearchFilters[]>();
  for (const subscription of subscriptions) {
    const filters = followedSearch(subscription);
    if (filters === null || boundsCurrency(filters) === null) continue;
    const searches = searchesByCreator.get(subscription.createdBy) ?? [];
    searches.push(filters);
    searchesByCreator.set(subscription.createdBy, searches);
  }
  const rulesByCreator = new Map<string, ValueRules>();
  await Promise.all(
    [...searchesByCreator].map(async ([createdBy, searches]) => {
      let rules: ValueRules;
      try {
        const { client } = await context.clients.forPerson(teamId, createdBy);
        rules = await readValueRules(context, client, searches);
      } catch (error) {
        rules = unreadValueRules(searches, error);
      }
      rulesByCreator.set(createdBy, rules);
    }),
  );
  const failure = [...rulesByCreator.values()].find((rules) => rules.failure !== undefined)?.failure;
  if (failure !== undefined)
    context.logger.warn({ err: failure, teamId }, 'the value rule of a subscription could not be read');
  return rulesByCreator;
}

/** The rules already kept for `subscription`'s feed (through the client it posts with); never asks the service. */
async function keptRulesOf(context: FeatureContext, subscription: Subscription): Promise<ValueRules> {
  const filters = followedSearch(subscription);
  if (filters === null || boundsCurrency(filters) === null) return NO_VALUE_RULES;
  try {
    const { client } = await context.clients.forPerson(subscription.teamId, subscription.createdBy);
    return keptValueRules(context, client, [filters]);
  } catch {
    return NO_VALUE_RULES;
  }
}

/**
 * A subscription named by a command or by a button of an older list that is not there: unsubscribed
 * (from the list, by command, or by another copy of it), or never this workspace's. Every
 * per-subscription command and button says this, never that the button is out of date: its value
 * read well, only what it names is gone.
 */
export function noSuchSubscription(id: string): Mrkdwn {
  return mrkdwn`No subscription has the id ${code(id, 100)} (it may be unsubscribed already). \`/tender subscriptions\` lists this channel’s.`;
}

/** `/tender unsubscribe <id>` and the list's Unsubscribe button. */
export async function unsubscribe(
  context: FeatureContext,
  request: SlackRequest,
  id: string,
  fromList: boolean,
): Promise<void> {
  if (await refuseGuests(context, request, 'change subscriptions')) return;
  const subscription = await context.store.getSubscription(request.teamId, id);
  const elsewhere = subscription && (await postsElsewhere(context, request, subscription, 'unsubscribe'));
  if (elsewhere) return say(request, elsewhere);
  if (!subscription || !(await context.store.removeSubscription(request.teamId, id)))
    return say(request, noSuchSubscription(id));
  // The list drawn again under the sentence (its rules read, or kept) comes first: the goodbye says
  // the rule only when it is kept, and is never held up by asking the service for it.
  const list = fromList
    ? await listMessage(
        context,
        request.teamId,
        request.channelId,
        await context.store.channelSubscriptions(request.teamId, request.channelId),
      )
    : null;
  const [rules, bids] = await Promise.all([
    keptRulesOf(context, subscription),
    bidsOf(context, request.teamId, [subscription]),
  ]);
  const what = lowerFirst(subscriptionSummary(subscription, rules, bids));
  const sentence = mrkdwn`Unsubscribed ${channelLink(subscription.channelId)} from ${what}. Nothing more will be posted for it.`;
  // Said in the channel, as subscribing is: the team it posted for learns why it stops, and who
  // stopped it. Where that cannot be posted (Tenderbot removed), the person alone is told.
  const announced = await request.slack.chat
    .postMessage({
      channel: subscription.channelId,
      text: mrkdwn`${mention(request.userId)} unsubscribed this channel from ${what}. Nothing more will be posted for it.`,
      unfurl_links: false,
    })
    .then(
      () => true,
      () => false,
    );
  if (list) {
    await reply(request, { text: sentence, blocks: [section(sentence), ...list.blocks] }, true);
    return;
  }
  if (!announced || subscription.channelId !== request.channelId) await say(request, sentence);
}

/**
 * Why a subscription of another channel is not changed from here, or null when it is this
 * channel's. Its list and buttons are in its own channel; nobody stops or sets off another
 * channel's posts (a private one's above all) from where they are. A workspace admin may
 * unsubscribe one from anywhere: an archived channel takes no commands.
 */
export async function postsElsewhere(
  context: FeatureContext,
  request: SlackRequest,
  subscription: Subscription,
  action: 'unsubscribe' | 'send now',
): Promise<Mrkdwn | null> {
  if (subscription.channelId === request.channelId) return null;
  if (action === 'unsubscribe' && (await context.users.facts(request.userId, request.teamId)).isAdmin)
    return null;
  const there = channelLink(subscription.channelId);
  return action === 'unsubscribe'
    ? mrkdwn`That subscription posts in ${there}: unsubscribe it there, where \`/tender subscriptions\` lists it. Nothing was changed.`
    : mrkdwn`That subscription posts in ${there}: send it from there, where \`/tender subscriptions\` lists it. Nothing was posted.`;
}

/** The value of "List them", "Next" and "Previous" under a feed post. */
export const ListMoreValue = z.strictObject({
  d: z.string().uuid(),
  o: z.number().int().min(0).max(FEED_READ_LIMIT),
});

/** A listed tender as kept with its item (parsed, never cast). */
const ListedLine = z.object({
  id: z.string(),
  title: z.string(),
  buyer: z.string().nullable(),
  deadline: z.string().nullable(),
});

/** "…and N more": the rest of a feed post's tenders, from what the post froze (no service call). */
export async function listMore(
  context: FeatureContext,
  request: SlackRequest,
  raw: string | undefined,
  replace: boolean,
): Promise<void> {
  let value: z.infer<typeof ListMoreValue>;
  try {
    value = ListMoreValue.parse(JSON.parse(raw ?? ''));
  } catch {
    throw new StaleValueError('list value');
  }
  const delivery = await context.store.getDelivery(value.d);
  if (delivery && delivery.teamId !== request.teamId) throw new StaleValueError('another workspace');
  if (!delivery?.frozen) {
    const text = mrkdwn`That post is older than ${KEEP_DELIVERIES_MS / 86_400_000} days: its list is no longer kept. \`/tender search\` finds its tenders.`;
    await reply(request, { text, blocks: [section(text)] }, replace);
    return;
  }
  const frozen = JSON.parse(delivery.frozen) as Frozen;
  const kept = await context.store.deliveryListing(delivery.id, value.o, MORE_PAGE);
  let page: ListedTender[];
  let total: number;
  if (kept && kept.total > 0) {
    page = kept.items.map((line) => ListedLine.parse(JSON.parse(line)));
    total = kept.total;
  } else {
    // Posts frozen before listings were kept with their items carry their list.
    const listed = frozen.listed ?? [];
    page = listed.slice(value.o, value.o + MORE_PAGE);
    total = listed.length;
  }
  await reply(request, moreTendersMessage(page, value.o, total, delivery.id, context.clock()), replace);
}
