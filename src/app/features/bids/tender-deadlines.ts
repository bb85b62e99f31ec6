/*
 * The closing deadline of a bid's tender, which a stage's due date or the bid's target submission
 * date should not pass, and its title (what the bid's card names it by): read for cards and forms
 * (kept a while in memory). A date after it is
 * flagged, not refused: stages such as a presentation or clarifications come after the deadline,
 * and the card shows the flag beside the date at once.
 */
import { LRUCache } from 'lru-cache';
import { NotFoundError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';

/** A tender's deadline as the service gives it (an instant), or null when it has none. */
export type TenderDeadline = string | null;

/** What a bid's card and forms say of its tender: its deadline, and its title (null when unread). */
export interface TenderFacts {
  deadline: TenderDeadline;
  title: string | null;
}

/** Tenders read, by workspace and tender: a card is redrawn on every change, its tender read once in a while. */
const readTenders = new LRUCache<string, TenderFacts>({ max: 5_000, ttl: 10 * 60_000 });

const UNREAD: TenderFacts = { deadline: null, title: null };

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
  return (await tenderFactsOf(context, teamId, tenderId, reader)).deadline;
}

/** The deadline and title of a bid's tender, read as tenderDeadlineOf reads it (nulls when it cannot be). */
export async function tenderFactsOf(
  context: FeatureContext,
  teamId: string,
  tenderId: string | null,
  reader: () => Promise<ProcurementClient>,
): Promise<TenderFacts> {
  if (!tenderId) return UNREAD;
  const key = `${teamId}\u0000${tenderId}`;
  const known = readTenders.get(key);
  if (known) return known;
  try {
    const client = await reader();
    const tender = await client.tenders.get(tenderId, { timeoutMs: READ_TIMEOUT_MS, maxRetries: 0 });
    const facts = { deadline: tender.deadline, title: tender.title };
    readTenders.set(key, facts);
    return facts;
  } catch (error) {
    // A tender the service no longer has has no deadline to keep to: not asked for again.
    if (error instanceof NotFoundError) readTenders.set(key, UNREAD);
    else {
      // Not asked again for a minute: while the service is slow, every redraw of the card (each
      // click on it) would otherwise wait the read's 2 s again.
      readTenders.set(key, UNREAD, { ttl: FAILED_READ_KEPT_MS });
      context.logger.warn({ err: error, teamId }, 'could not read a bid’s tender for its deadline');
    }
    return UNREAD;
  }
}
