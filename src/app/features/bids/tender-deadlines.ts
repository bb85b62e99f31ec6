/*
 * The closing deadline of a bid's tender, which a stage's due date or the bid's target submission
 * date should not pass: read for cards and forms (kept a while in memory). A date after it is
 * flagged, not refused: stages such as a presentation or clarifications come after the deadline,
 * and the card shows the flag beside the date at once.
 */
import { LRUCache } from 'lru-cache';
import { NotFoundError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';

/** A tender's deadline as the service gives it (an instant), or null when it has none. */
export type TenderDeadline = string | null;

/** Deadlines read, by workspace and tender: a card is redrawn on every change, its tender read once in a while. */
const readDeadlines = new LRUCache<string, { deadline: TenderDeadline }>({ max: 5_000, ttl: 10 * 60_000 });

/** A read that failed is not tried again for this long (the card is drawn without the flag meanwhile). */
const FAILED_READ_KEPT_MS = 60_000;

/** A card or form never waits long for its tender: past this it goes without the deadline. */
const READ_TIMEOUT_MS = 2_000;

/**
 * The deadline of a bid's tender, for its card or a form opening: null when the bid has no tender,
 * the tender no deadline, or it could not be read (drawn then without the warning, never held up).
 */
export async function tenderDeadlineOf(
  context: FeatureContext,
  teamId: string,
  tenderId: string | null,
  reader: () => Promise<ProcurementClient>,
): Promise<TenderDeadline> {
  if (!tenderId) return null;
  const key = `${teamId}\u0000${tenderId}`;
  const known = readDeadlines.get(key);
  if (known) return known.deadline;
  try {
    const client = await reader();
    const tender = await client.tenders.get(tenderId, { timeoutMs: READ_TIMEOUT_MS, maxRetries: 0 });
    readDeadlines.set(key, { deadline: tender.deadline });
    return tender.deadline;
  } catch (error) {
    // A tender the service no longer has has no deadline to keep to: not asked for again.
    if (error instanceof NotFoundError) readDeadlines.set(key, { deadline: null });
    else {
      // Not asked again for a minute: while the service is slow, every redraw of the card (each
      // click on it) would otherwise wait the read's 2 s again.
      readDeadlines.set(key, { deadline: null }, { ttl: FAILED_READ_KEPT_MS });
      context.logger.warn({ err: error, teamId }, 'could not read a bid’s tender for its deadline');
    }
    return null;
  }
}
