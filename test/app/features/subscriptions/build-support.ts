import { buildDelivery } from '../../../../src/app/features/subscriptions/content.ts';
import { previewDelivery } from '../../../../src/app/features/subscriptions/send-now.ts';
import type { Subscription } from '../../../../src/app/storage/subscription-store.ts';
import type { HandlerHarness } from '../../../support/handler-context.ts';

/**
 * What a subscription's post would be, built at `now` from the service with the workspace's key,
 * as the scheduler builds it: its text and blocks as one string, its items, and its new cursor.
 */
export async function builtPost(
  harness: HandlerHarness,
  args: {
    kind: Subscription['kind'];
    target: object;
    now: Date;
    cursor?: string | null;
    exclude?: string[];
  },
) {
  const { now } = args;
  const { client } = await harness.context.clients.forTeam(harness.slack.teamId);
  const subscription: Subscription = {
    id: 's-built',
    teamId: harness.slack.teamId,
    channelId: 'C0BIDS',
    kind: args.kind,
    target: JSON.stringify(args.target),
    cadence: 'daily',
    localTime: '09:00',
    timeZone: 'Europe/London',
    createdBy: 'U0ADMIN',
    createdAt: now,
    pausedReason: null,
    nextRunAt: now,
    cursor: args.cursor ?? null,
    skippedCount: 0,
  };
  const built = await buildDelivery({
    client,
    reader: { key: 'workspace', name: 'this workspace’s key' as never },
    subscription,
    delivery: previewDelivery(subscription, now),
    now,
    exclude: new Set(args.exclude ?? []),
  });
  const messages = built.kind === 'post' ? built.frozen.parts : built.said ? [built.said] : [];
  return {
    built,
    read: messages.map((message) => `${message.text} ${JSON.stringify(message.blocks)}`).join(' '),
    keys: built.kind === 'post' ? built.frozen.itemKeys : [],
    cursor: built.kind === 'post' ? (built.frozen.cursor?.json ?? null) : null,
  };
}
