import type { ScheduledSlack } from '../adapters/scheduled-slack.ts';

/** The metadata event type every scheduled post carries, with its delivery id and part number. */
export const DELIVERY_EVENT_TYPE = 'tenderbot_delivery';

/**
 * How far Slack's clock (a message's ts is when Slack stored it) may be from this copy's, read on
 * each side of the attempt's window.
 */
export const CLOCK_MARGIN_MS = 60_000;
/** Slack gives an app outside the Marketplace at most 15 messages a call (changelog 2025-05-29). */
const HISTORY_PAGE = 15;

/** Where a part whose answer was lost can be: its channel, and the window its ts is in. */
export interface LostPart {
  teamId: string;
  channel: string;
  deliveryId: string;
  part: number;
  /** When it was sent, and when it could last have reached Slack (both on this copy's clock). */
  window: { from: Date; until: Date };
  /** The window was read from its end down to this ts already (null: nothing read yet). */
  latest: string | null;
}

/** What one page of the window's history says. */
export type HistoryPage =
  /** Slack stored it: its ts. */
  | { kind: 'found'; ts: string }
  /** The whole window was read and it is not there: Slack did not store it. */
  | { kind: 'absent' }
  /** Not on this page; the rest of the window is older than `latest` (the next read's bound). */
  | { kind: 'more'; latest: string };

/** Slack's `seconds.micro` form of an instant. */
function slackTs(at: number): string {
  return (at / 1000).toFixed(6);
}

/**
 * Reads one page of the channel's history within the attempt's window (newest first, below what
 * was read already), looking for the part by the delivery id and part number in its metadata.
 * The window is seconds long, so however busy the channel, the messages after it are never read.
 */
export async function readWindowPage(slack: ScheduledSlack, lost: LostPart): Promise<HistoryPage> {
  const answer = await slack.conversations.history({
    teamId: lost.teamId,
    channel: lost.channel,
    oldest: slackTs(lost.window.from.getTime() - CLOCK_MARGIN_MS),
    latest: lost.latest ?? slackTs(lost.window.until.getTime() + CLOCK_MARGIN_MS),
    include_all_metadata: true,
    limit: HISTORY_PAGE,
  });
  const messages = answer.messages ?? [];
  for (const message of messages) {
    const metadata = message.metadata as
      | { event_type?: string; event_payload?: { delivery_id?: unknown; part?: unknown } }
      | undefined;
    if (
      metadata?.event_type === DELIVERY_EVENT_TYPE &&
      metadata.event_payload?.delivery_id === lost.deliveryId &&
      Number(metadata.event_payload?.part) === lost.part &&
      message.ts
    )
      return { kind: 'found', ts: message.ts };
  }
  // Slack's ts are unique in a channel: below the oldest one read (exclusive), nothing is missed.
  const oldestRead = messages.at(-1)?.ts;
  if (answer.has_more && oldestRead) return { kind: 'more', latest: oldestRead };
  return { kind: 'absent' };
}
