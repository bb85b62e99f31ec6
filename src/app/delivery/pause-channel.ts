import type { Logger } from 'pino';
import type { ScheduledSlack } from '../adapters/scheduled-slack.ts';
import type { WorkspaceClients } from '../adapters/workspace-clients.ts';
import { pausedNotice, subscriptionSummary } from '../features/subscriptions/describe.ts';
import { bidsOf } from '../features/subscriptions/subscription-list.ts';
import { text } from '../shared/views/mrkdwn.ts';
import type { BidReferenceStore } from '../storage/bid-reference-store.ts';
import type { Subscription, SubscriptionStore } from '../storage/subscription-store.ts';

/**
 * A channel that is gone (archived, the app removed): pauses every subscription of the channel and
 * tells each subscriber once, by direct message (only the copy whose pause took effect tells them).
 */
export async function pauseChannel(
  {
    store,
    clients,
    slack,
    logger,
  }: {
    store: Pick<SubscriptionStore, 'pauseChannel'> & Partial<Pick<BidReferenceStore, 'bidReferenceNumbers'>>;
    clients: Pick<WorkspaceClients, 'forPerson'>;
    slack: ScheduledSlack;
    logger: Logger;
  },
  subscription: Subscription,
  reason: string,
): Promise<void> {
  const paused = await store.pauseChannel(subscription.teamId, subscription.channelId, reason);
  // A bid's summaries named as the list names them: its reference and its name now.
  const bids = await bidsOf({ clients, store }, subscription.teamId, paused);
  const byPerson = new Map<string, Subscription[]>();
  for (const each of paused) byPerson.set(each.createdBy, [...(byPerson.get(each.createdBy) ?? []), each]);
  for (const [userId, theirs] of byPerson) {
    const message = pausedNotice(
      theirs.map((each) => subscriptionSummary(each, undefined, bids)),
      subscription.channelId,
      text(reason),
    );
    await slack.chat
      .postMessage({
        teamId: subscription.teamId,
        channel: userId,
        text: message.text,
        blocks: message.blocks,
      })
      .catch((error: unknown) =>
        logger.warn({ err: error, userId }, 'could not tell a subscriber that their subscription is paused'),
      );
  }
}
