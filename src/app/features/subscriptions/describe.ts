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
import { newTendersPhrase } from './feed-words.ts';

/**
 * What a subscription posts, in a bid lead's words (mrkdwn, escaped). A feed with value bounds says
 * after them the rule its posts will be compared by, from `rules` (read from the service, see
 * readValueRules): its stored description, of whatever age, never holds one.
 */
export function subscriptionSummary(
  subscription: Subscription,
  rules: ValueRules = NO_VALUE_RULES,
  /** A bid's summaries: its name now and its reference (`BID-7`), where read; else the name kept when subscribed. */
  bids: ReadonlyMap<string, { name?: string; reference?: string }> = new Map(),
): Mrkdwn {
  try {
    const target = JSON.parse(subscription.target) as unknown;
    switch (subscription.kind) {
      case 'pipeline': {
        const { p, n } = PipelineTarget.parse(target);
        const known = bids.get(p);
        const name = known?.name ?? n;
        const reference = known?.reference ? mrkdwn` (${code(known.reference)})` : mrkdwn``;
        // The bid's name is what people know it by; its id only when no name is known.
        return name
          ? mrkdwn`Summaries of the bid “${safeText(name, 200)}”${reference}`
          : known?.reference
            ? mrkdwn`Summaries of the bid ${code(known.reference)}`
            : mrkdwn`Summaries of the bid ${code(p, 200)}`;
      }
      case 'search': {
        const { d, f, ss } = SearchTarget.parse(target);
        const rule = ruleOf(rules, f);
        // A saved search is described by its name (`the saved search “Welsh”`), whatever it filters.
        const title = ss ? mrkdwn`New tenders for ${storedMrkdwn(d)}` : feedTitle(storedMrkdwn(d), f);
        return rule ? mrkdwn`${title}; ${valueRuleSentence(rule)}` : title;
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

/**
 * A feed's title from its search's description (describeSearch's, as stored when it was made):
 * “for” only before the words searched (`New tenders for “cleaning”, in North West`); without
 * words the description follows on (`New tenders in South West`, `New tenders worth £100,000 or more`),
 * a status first reads as an adjective (`New open tenders with a CPV code starting 72`).
 */
function feedTitle(described: Mrkdwn, search: TenderSearchFilters): Mrkdwn {
  return newTendersPhrase(described, search);
}

/** The bid a summary follows, or null for other kinds or an unreadable one. */
export function followedBid(subscription: Subscription): string | null {
  return subscription.kind === 'pipeline' ? (targetOf(subscription, PipelineTarget)?.p ?? null) : null;
}

/** The search a new-tender feed follows (for reading its value rule); null for other kinds or an unreadable one. */
export function followedSearch(subscription: Subscription): TenderSearchFilters | null {
  return subscription.kind === 'search' ? (targetOf(subscription, SearchTarget)?.f ?? null) : null;
}

/** A subscription's stored target read with `schema`, or null when it does not read. */
function targetOf<T>(
  subscription: Subscription,
  schema: { safeParse(value: unknown): { success: boolean; data?: T } },
): T | null {
  try {
    const parsed = schema.safeParse(JSON.parse(subscription.target));
    return parsed.success ? (parsed.data as T) : null;
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
