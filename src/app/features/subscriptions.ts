import type { FeatureContext, Request } from './feature-context.ts';
import { reply } from './feature-context.ts';

export type SubscriptionSubcommand = 'subscribe' | 'subscriptions' | 'unsubscribe';

/** `/tender subscribe …`, `/tender subscriptions`, `/tender unsubscribe <id>` (being built: issue 9). */
export async function subscriptionCommand(
  _context: FeatureContext,
  request: Request,
  _kind: SubscriptionSubcommand,
  _rest: string,
): Promise<void> {
  const text = 'Channel subscriptions are not available yet.';
  await reply(request, { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
}
