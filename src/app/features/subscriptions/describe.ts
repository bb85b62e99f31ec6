import type { TenderSearchFilters } from '../../shared/commands/parse-command.ts';
import { NO_VALUE_RULES, ruleOf, type ValueRules } from '../../shared/value-rules.ts';
import { valueRuleSentence } from '../../shared/views/describe-search.ts';
import type { Message } from '../../shared/views/messages.ts';
import {
  channelLink,
  code,
  joinMrkdwn,
  type Mrkdwn,
  mrkdwn,
  safeText,
  storedMrkdwn,
} from '../../shared/views/mrkdwn.ts';
import { section } from '../../shared/views/tender-card.ts';
import type { Subscription } from '../../storage/subscription-store.ts';
import { DeadlinesTarget, PipelineTarget, SearchTarget } from './content.ts';

/**
 * What a subscription posts, in a bid lead's words (mrkdwn, escaped). A feed with value bounds says
 * after them the rule its posts will be compared by, from `rules` (read from the service, see
 * readValueRules): its stored description, of whatever age, never holds one.
 */
export function subscriptionSummary(subscription: Subscription, rules: ValueRules = NO_VALUE_RULES): Mrkdwn {
  try {
    const target = JSON.parse(subscription.target) as unknown;
    switch (subscription.kind) {
      case 'pipeline': {
        const { p, n } = PipelineTarget.parse(target);
        // The bid's name is what people know it by; its id only when the name was not kept.
        return n
          ? mrkdwn`Summaries of the bid “${safeText(n, 200)}”`
          : mrkdwn`Summaries of the bid ${code(p, 200)}`;
      }
      case 'search': {
        const { d, f } = SearchTarget.parse(target);
        const rule = ruleOf(rules, f);
        return rule
          ? mrkdwn`New tenders for ${storedMrkdwn(d)}; ${valueRuleSentence(rule)}`
          : mrkdwn`New tenders for ${storedMrkdwn(d)}`;
      }
      case 'deadlines': {
        const { days } = DeadlinesTarget.parse(target);
        return mrkdwn`Reminders of deadlines within ${days} ${days === 1 ? mrkdwn`day` : mrkdwn`days`}`;
      }
    }
  } catch {
    return mrkdwn`A subscription Tenderbot can no longer read`;
  }
}

/** The search a new-tender feed follows (for reading its value rule); null for other kinds or an unreadable one. */
export function followedSearch(subscription: Subscription): TenderSearchFilters | null {
  if (subscription.kind !== 'search') return null;
  try {
    const parsed = SearchTarget.safeParse(JSON.parse(subscription.target));
    return parsed.success ? parsed.data.f : null;
  } catch {
    return null;
  }
}

/** The direct message to a subscriber whose subscriptions were paused. */
export function pausedNotice(whats: Mrkdwn[], channelId: string, reason: Mrkdwn): Message {
  const list = joinMrkdwn(
    whats.map((what) => mrkdwn`• ${what}`),
    mrkdwn`\n`,
  );
  const sentence = mrkdwn`Tenderbot stopped posting in ${channelLink(channelId)}: ${reason}.`;
  return {
    text: sentence,
    blocks: [
      section(
        mrkdwn`${sentence}\n${list}\nNothing more will be posted there. To start again, invite Tenderbot back (\`/invite @Tenderbot\` in the channel, or unarchive it first), then run \`/tender subscriptions\` there and press *Send now* on each.`,
      ),
    ],
  };
}
