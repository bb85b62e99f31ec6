/*
 * The contract every kind of subscription post is built to (content.ts, deadline-reminders.ts):
 * what building one is given and gives back, and the reads and words the kinds share.
 */
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Pipeline } from '../../../contract/schemas.ts';
import { countdown } from '../../shared/views/bid-parts.ts';
import type { Message } from '../../shared/views/messages.ts';
import type { Mrkdwn } from '../../shared/views/mrkdwn.ts';
import type { Delivery } from '../../storage/delivery-store.ts';
import type { Subscription } from '../../storage/subscription-store.ts';
import type { ListedTender } from './views/subscription-messages.ts';

export const DAY_MS = 86_400_000;

/** What a delivery will post, fixed before its first part is sent. */
export interface Frozen {
  parts: Message[];
  itemKeys: string[];
  cursor: { json: string; at: string } | null;
  skippedSaid: number;
  /** A feed's tenders, for "and N more". */
  listed?: ListedTender[];
}

export type Built =
  | {
      kind: 'post';
      frozen: Frozen;
      /** A line kept with each of `frozen.itemKeys` (by index): what "and N more" lists. */
      listings?: (string | null)[];
    }
  | {
      kind: 'empty';
      cursor: Frozen['cursor'];
      /** For "Send now": what the post would have said, shown to the presser alone (nothing is posted). */
      said?: Message;
    };

export interface BuildInput {
  client: ProcurementClient;
  /**
   * Whose key `client` holds: `key` tells readers apart (reads are shared only between deliveries
   * read with the same key), `name` says it in a post (“this workspace’s key”, “<@U1>’s own key”).
   */
  reader: { key: string; name: Mrkdwn };
  subscription: Subscription;
  delivery: Delivery;
  now: Date;
  /** Items another delivery already took (rebuilt without them). */
  exclude: ReadonlySet<string>;
  /**
   * Reads shared by the deliveries of one pass (many channels following one bid read it once).
   * Keyed by workspace and what is read.
   */
  shared?: Map<string, Promise<unknown>>;
  /** Of these items, those the subscription already posted (skipped when reading a feed). */
  delivered?: (itemKeys: string[]) => Promise<Set<string>>;
  /** New tenders one feed post reads at most (FEED_READ_LIMIT). */
  feedReadLimit?: number;
  /** pipeline id → `BID-7`, naming bids as their cards do (given now where new); else by name alone. */
  bidReferences?: (pipelineIds: string[]) => Promise<Map<string, string>>;
}

/** The deadline of a bid's tender (shared between the pass's deliveries), or null when unread. */
export async function tenderDeadline(input: BuildInput, tenderId: string): Promise<string | null> {
  const key = `${input.subscription.teamId}|${input.reader.key}|tender|${tenderId}`;
  let read = input.shared?.get(key) as Promise<string | null> | undefined;
  if (!read) {
    read = input.client.tenders.get(tenderId).then(
      (tender) => tender.deadline,
      () => null,
    );
    input.shared?.set(key, read);
  }
  return read;
}

/** "1 Dec 2026 · in 9 days" counted from the subscriber's own today. */
export function countdownLocal(
  day: string | null,
  today: string,
  bid?: { status: Pipeline['status']; archived?: boolean },
): string {
  return countdown(day, new Date(`${today}T12:00:00Z`), bid);
}
