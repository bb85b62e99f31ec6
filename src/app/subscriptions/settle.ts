import type { ScheduledSlack } from '../adapters/scheduled-slack.ts';

/** The metadata event type every scheduled post carries, with its delivery id and part number. */
export const DELIVERY_EVENT_TYPE = 'tenderbot_delivery';

/** How far before the attempt the history is read (clocks differ; Slack's ts is its own). */
const HISTORY_MARGIN_MS = 60_000;
/** Slack gives unlisted apps 15 messages a call and about one call a minute: a few pages at most. */
const HISTORY_PAGE = 15;
const HISTORY_PAGES = 4;

/**
 * Looks for a part of a delivery in the channel's recent history, by the delivery id and part in
 * its metadata: its ts when Slack stored it, null when it is not there. Reads only messages since
 * shortly before the attempt (tight bounds: history calls are scarce).
 */
export async function findPostedPart(
  slack: ScheduledSlack,
  where: { teamId: string; channel: string; deliveryId: string; part: number; since: Date; now: Date },
): Promise<string | null> {
  const oldest = ((where.since.getTime() - HISTORY_MARGIN_MS) / 1000).toFixed(6);
  let cursor: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const answer = await slack.conversations.history({
      teamId: where.teamId,
      channel: where.channel,
      oldest,
      include_all_metadata: true,
      limit: HISTORY_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    for (const message of answer.messages ?? []) {
      const metadata = message.metadata as
        | { event_type?: string; event_payload?: { delivery_id?: unknown; part?: unknown } }
        | undefined;
      if (
        metadata?.event_type === DELIVERY_EVENT_TYPE &&
        metadata.event_payload?.delivery_id === where.deliveryId &&
        Number(metadata.event_payload?.part) === where.part &&
        message.ts
      )
        return message.ts;
    }
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!answer.has_more || !cursor) break;
  }
  return null;
}
