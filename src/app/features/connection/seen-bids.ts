/*
 * Bids are seen per key's maker (the service shows a bid to the person whose key started it and to
 * those it is shared with): a change of key, the workspace's or a person's own, can hide bids the
 * earlier key saw. Said when it does, with the way back.
 */
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import { type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';

/**
 * The ids of the bids a key sees (archived too), or null when they cannot be read now (a key
 * without pipeline:read, a slow service) or are more than one page of 100: past the first page, a
 * bid of the earlier key's first 100 may be on the new key's next, and would be said hidden.
 */
export async function seenBidIds(
  clientOf: () => Promise<{ client: ProcurementClient }>,
): Promise<Set<string> | null> {
  try {
    const { client } = await clientOf();
    const page = await client.pipelines.list({ archived: 'all', limit: 100 }, { timeoutMs: 1500 });
    if (page.pagination.total > page.data.length) return null;
    return new Set(page.data.map((pipeline) => pipeline.id));
  } catch {
    return null;
  }
}

/** How many bids seen before are not seen after (0 when either could not be read). */
export function hiddenCount(before: ReadonlySet<string> | null, after: ReadonlySet<string> | null): number {
  return before !== null && after !== null ? [...before].filter((id) => !after.has(id)).length : 0;
}

/**
 * Bids the earlier key saw that the new one does not, and the way back: the workspace's previous
 * key connected again; a person's own key unlinked (back to the shared one) or linked again.
 */
export function hiddenBidsSentence(count: number, change: 'workspace' | 'linked' | 'unlinked'): Mrkdwn {
  const bids = count === 1 ? mrkdwn`1 bid` : mrkdwn`${count} bids`;
  const are = count === 1 ? mrkdwn`is` : mrkdwn`are`;
  const them = count === 1 ? mrkdwn`it` : mrkdwn`them`;
  const why = mrkdwn`the service shows a bid to the person whose key started it and to those it is shared with.`;
  switch (change) {
    case 'workspace':
      return mrkdwn` ${bids} seen with the previous key ${are} not seen with this one: ${why} To work on ${them}, connect the previous key again (or a key of someone it is shared with).`;
    case 'linked':
      return mrkdwn` ${bids} you saw with the shared key ${are} not seen with your own: ${why} To work on ${them}, \`/tender disconnect me\` goes back to the shared key.`;
    case 'unlinked':
      return mrkdwn` ${bids} you saw with your own key ${are} not seen with the shared one: ${why} To work on ${them}, link your key again with \`/tender connect me\`.`;
  }
}
