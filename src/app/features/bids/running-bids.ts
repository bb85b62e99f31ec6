/*
 * Bids already running for a tender, looked for when "Start a bid" opens on it: a team may bid
 * twice (two lots), but should know before it does. The service lists bids with no filter by
 * tender, so the key's active bids are paged, newest first, within a bound.
 */
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { PipelineListItem } from '../../../contract/schemas.ts';
import { ENDED } from '../../shared/views/bid-parts.ts';

/** Active bids a page holds (the service's most). */
const PAGE_SIZE = 100;
/** Pages read at most: 500 active bids, newest first, in five requests; most keys see one page. */
const PAGES = 5;
/** The newest active bids looked through at most. */
export const RUNNING_BIDS_LOOKED_THROUGH = PAGE_SIZE * PAGES;
/**
 * The whole look waits this long at most, pages and all: the form waits for it (it is open
 * meanwhile, saying it is reading), and a slow list must not hold a form the tender alone could
 * draw. Past it the form opens saying the check could not be made.
 */
export const RUNNING_BIDS_BUDGET_MS = 2_500;

export interface RunningBids {
  /** Active bids on the tender that are not won, lost or no bid, newest first. */
  bids: PipelineListItem[];
  /** False when the key sees more active bids than were looked through. */
  complete: boolean;
}

/** The bids running for `tenderId` that `client`'s key can see; throws the service's failure. */
export async function runningBidsOn(
  client: ProcurementClient,
  tenderId: string,
  budgetMs = RUNNING_BIDS_BUDGET_MS,
): Promise<RunningBids> {
  const bids: PipelineListItem[] = [];
  const endsAt = Date.now() + budgetMs;
  for (let page = 0; page < PAGES; page++) {
    const left = endsAt - Date.now();
    if (left <= 0) throw new Error('the look for running bids ran out of time');
    const found = await client.pipelines.list(
      { archived: 'active', limit: PAGE_SIZE, offset: page * PAGE_SIZE },
      { timeoutMs: left, maxRetries: 0 },
    );
    for (const item of found.data)
      if (item.tenderId === tenderId && !ENDED.includes(item.status)) bids.push(item);
    if (!found.pagination.hasMore || found.data.length === 0) return { bids, complete: true };
  }
  return { bids, complete: false };
}
