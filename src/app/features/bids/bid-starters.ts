/* Who started each bid, as the card says it, for lists of bids other features draw (the Home tab). */
import type { PipelineListItem } from '../../../contract/schemas.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import type { Mrkdwn } from '../../shared/views/mrkdwn.ts';
import { startedByPhrase } from './views/bid-people.ts';

/** Each bid with `startedBy`: "started by @alice · owner Carol" as on its card (one store read for all). */
export async function withStartedBy<T extends Pick<PipelineListItem, 'id' | 'owner'>>(
  context: FeatureContext,
  teamId: string,
  items: readonly T[],
): Promise<(T & { startedBy: Mrkdwn })[]> {
  const starters = await context.store.bidStarters(
    teamId,
    items.map((item) => item.id),
  );
  return items.map((item) => ({
    ...item,
    startedBy: startedByPhrase(item.owner.name, starters.get(item.id)),
  }));
}
