/*
 * Bids' short references (`BID-7`): what cards, lists, summaries and reminders show, and what every
 * command taking a bid reads, besides its full id and the first 8 or more characters of it.
 * `BID-` says what the thing is wherever it is pasted, and cannot be mistaken for a tender's
 * printed reference (`TB-0002859`) or the start of an id (hex, no `I`). Button values keep ids.
 */
import type { WorkspaceClient } from '../../adapters/workspace-clients.ts';
import type { FeatureContext } from '../../shared/feature-context.ts';
import { code, joinMrkdwn, type Mrkdwn, mrkdwn } from '../../shared/views/mrkdwn.ts';
import type { BidReferenceStore } from '../../storage/bid-reference-store.ts';

/** `BID-7`: how people say and type bid number 7 of their workspace. */
export const bidReferenceText = (number: number): string => `BID-${number}`;

/** `BID-7`, `bid7`, `BID 7` (digits of any script already read as 0-9): any length, checked after. */
const REFERENCE = /^bid[-\s]?(\d+)$/i;
/** The largest reference number: longer ones name no bid (and are never sent to the service as ids). */
const MAX_REFERENCE_DIGITS = 9;
const ANY_DIGIT = /\p{Nd}/gu;
const DIGIT = /^\p{Nd}$/u;

/** Digits of any script (Arabic-Indic ١, fullwidth ７…) as 0-9: each is its place in its run of ten. */
function asciiDigits(text: string): string {
  return text.replace(ANY_DIGIT, (digit) => {
    let start = digit.codePointAt(0) as number;
    while (DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
    return String(((digit.codePointAt(0) as number) - start) % 10);
  });
}
const FULL_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID_PREFIX = /^[0-9a-f][0-9a-f-]{7,34}$/i;
/** The shortest start of an id read as one: shorter ones match too many bids to be worth trying. */
const ID_PREFIX_LENGTH = 8;
/** Bids read from the service when looking for ids that start with what was typed. */
const PREFIX_SCAN_PAGES = 5;
/** Matches of an ambiguous start named in the answer. */
const MATCHES_NAMED = 5;

/**
 * Each bid's reference (`BID-7`), id → text, giving the next numbers to bids shown or started for
 * the first time (one store call for them all).
 */
export function bidReferences(
  context: FeatureContext,
  teamId: string,
  pipelineIds: readonly string[],
): Promise<Map<string, string>> {
  return bidReferencesIn(context.store, teamId)(pipelineIds);
}

/** As bidReferences, from a store alone (the scheduler's posts name bids so too). */
export function bidReferencesIn(
  store: Pick<BidReferenceStore, 'bidReferenceNumbers'>,
  teamId: string,
): (pipelineIds: readonly string[]) => Promise<Map<string, string>> {
  return async (pipelineIds) => {
    const numbers = await store.bidReferenceNumbers(teamId, pipelineIds);
    return new Map([...numbers].map(([id, number]) => [id, bidReferenceText(number)]));
  };
}

/**
 * The bids' ids oldest first, the order new references are given in: whatever order a list or a
 * post draws them in, a workspace's bids are numbered as they were started. Bids made in the same
 * millisecond (an import) keep the given order reversed, since lists are newest first.
 */
export function idsOldestFirst(bids: readonly { id: string; createdAt?: string }[]): string[] {
  const createdMs = (bid: { createdAt?: string }) => Date.parse(bid.createdAt ?? '') || 0;
  return bids
    .map((bid, index) => ({ bid, index }))
    .sort((a, b) => createdMs(a.bid) - createdMs(b.bid) || b.index - a.index)
    .map(({ bid }) => bid.id);
}

/**
 * Each item with `reference` (`BID-7`), for lists of bids other features draw (Home, summaries).
 * Bids shown for the first time are numbered oldest first, whatever the list's order: a workspace's
 * first `/tender pipelines` (newest first) would otherwise give its newest bid BID-1.
 */
export async function withBidReferences<T extends { id: string; createdAt?: string }>(
  context: FeatureContext,
  teamId: string,
  items: readonly T[],
): Promise<(T & { reference: string })[]> {
  const references = await bidReferences(context, teamId, idsOldestFirst(items));
  return items.map((item) => ({ ...item, reference: references.get(item.id) as string }));
}

/** What to type for a bid, said wherever a bid could not be found from what was typed. */
const WHAT_TO_TYPE = mrkdwn`Type the bid’s reference as its card shows it (like ${code('BID-7')}), its full id, or its first ${ID_PREFIX_LENGTH} characters; ${code('/tender pipelines all')} lists them.`;

/**
 * The bid id a person typed names: a reference (`BID-7`, `bid7`), a full id, or the start of an id
 * (8 characters or more) that only one bid seen by `client` or shown by Tenderbot here has. Other
 * words are passed on as ids (the service says whether it has them). A problem is a sentence.
 */
export async function resolveBidId(
  context: FeatureContext,
  teamId: string,
  typed: string,
  client: WorkspaceClient['client'],
): Promise<{ id: string } | { problem: Mrkdwn }> {
  const word = typed.trim().replace(/^[`#]+|`+$/g, '');
  const reference = REFERENCE.exec(asciiDigits(word).replace(/\s+/g, ' '));
  if (reference) {
    const digits = (reference[1] as string).replace(/^0+(?=\d)/, '');
    const id =
      digits.length <= MAX_REFERENCE_DIGITS
        ? await context.store.bidWithReferenceNumber(teamId, Number(digits))
        : null;
    if (id) return { id };
    return {
      problem: mrkdwn`No bid in this workspace is ${code(`BID-${digits}`, 30)}. ${WHAT_TO_TYPE}`,
    };
  }
  if (FULL_ID.test(word) || !ID_PREFIX.test(word)) {
    if (/^[0-9a-f-]{1,7}$/i.test(word))
      return { problem: mrkdwn`${code(word, 40)} is too short to pick out one bid. ${WHAT_TO_TYPE}` };
    return { id: word };
  }
  const prefix = word.toLowerCase();
  const matches = new Set(await context.store.bidsWithIdPrefix(teamId, prefix, MATCHES_NAMED + 1));
  for (let page = 0; page < PREFIX_SCAN_PAGES; page++) {
    const found = await client.pipelines.list({ archived: 'all', limit: 100, offset: page * 100 });
    for (const item of found.data) if (item.id.toLowerCase().startsWith(prefix)) matches.add(item.id);
    if ((page + 1) * 100 >= found.pagination.total) break;
  }
  const [only, ...others] = [...matches].sort();
  if (!only) return { problem: mrkdwn`No bid’s id starts with ${code(word, 40)}. ${WHAT_TO_TYPE}` };
  if (others.length === 0) return { id: only };
  const references = await bidReferences(context, teamId, [only, ...others].slice(0, MATCHES_NAMED));
  const named = joinMrkdwn(
    [...references].map(([id, text]) => mrkdwn`${code(text)} (${code(id, 40)})`),
    mrkdwn`, `,
  );
  return {
    problem: mrkdwn`${matches.size} bids have ids starting with ${code(word, 40)}: ${named}${matches.size > MATCHES_NAMED ? mrkdwn` and more` : mrkdwn``}. Type the one you mean by its reference, or more of its id.`,
  };
}
