import type { Message } from '../blocks/messages.ts';
import { safeText } from '../blocks/mrkdwn.ts';
import { section } from '../blocks/tender-card.ts';
import type { Subscription } from '../storage/bot-store.ts';
import { DeadlinesTarget, PipelineTarget, SearchTarget } from './content.ts';

/** What a subscription posts, in a bid lead's words (mrkdwn, escaped). */
export function subscriptionSummary(subscription: Subscription): string {
  try {
    const target = JSON.parse(subscription.target) as unknown;
    switch (subscription.kind) {
      case 'pipeline': {
        const { p, n } = PipelineTarget.parse(target);
        // The bid's name is what people know it by; its id only when the name was not kept.
        return n
          ? `Summaries of the bid “${safeText(n, 200)}”`
          : `Summaries of the bid \`${safeText(p, 200)}\``;
      }
      case 'search': {
        const { d } = SearchTarget.parse(target);
        return `New tenders for ${d}`;
      }
      case 'deadlines': {
        const { days } = DeadlinesTarget.parse(target);
        return `Reminders of deadlines within ${days} ${days === 1 ? 'day' : 'days'}`;
      }
    }
  } catch {
    return 'A subscription Tenderbot can no longer read';
  }
}

/** The direct message to a subscriber whose subscriptions were paused. */
export function pausedNotice(whats: string[], channelId: string, reason: string): Message {
  const list = whats.map((what) => `• ${what}`).join('\n');
  const text = `Tenderbot stopped posting in <#${channelId}>: ${reason}.`;
  return {
    text,
    blocks: [
      section(
        `${text}\n${list}\nNothing more will be posted there. To start again, invite Tenderbot back (\`/invite @Tenderbot\` in the channel, or unarchive it first), then run \`/tender subscriptions\` there and press *Send now* on each.`,
      ),
    ],
  };
}
