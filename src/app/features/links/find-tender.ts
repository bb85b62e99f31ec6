import { NotFoundError, ValidationError } from '../../../client/errors.ts';
import type { ProcurementClient } from '../../../client/procurement-client.ts';
import type { Tender } from '../../../contract/schemas.ts';
import { LONGEST_TOKEN, type NoticeRef } from './notice-links.ts';

/**
 * The tender a notice link or id names, when the service holds it; null when it does not (a
 * notice not imported, an id the service refuses). Any other failure is thrown.
 */
export async function findTender(
  client: ProcurementClient,
  ref: NoticeRef,
  options: { timeoutMs?: number } = {},
): Promise<Tender | null> {
  const call = options.timeoutMs ? { timeoutMs: options.timeoutMs, maxRetries: 0 } : undefined;
  try {
    if ('tenderId' in ref) return await client.tenders.get(ref.tenderId, call);
    // The service's `url` filter: tenders whose records name this URL (notice, document or link).
    const page = await client.tenders.search({ url: ref.noticeUrl, limit: 1 }, call);
    return page.data[0] ?? null;
  } catch (error) {
    // Not there, or an id or address the service refuses: either way the link is not a tender it holds.
    if (error instanceof NotFoundError || error instanceof ValidationError) return null;
    throw error;
  }
}

/** The first of `refs` the service holds (asked in order, at most `max`), with the ref that found it. */
export async function firstTender(
  client: ProcurementClient,
  refs: readonly NoticeRef[],
  max = 5,
): Promise<{ tender: Tender; ref: NoticeRef } | null> {
  for (const ref of refs.slice(0, max)) {
    const tender = await findTender(client, ref);
    if (tender) return { tender, ref };
  }
  return null;
}

/**
 * References as their sources print them, typed in a message: a Buyandsell number
 * (`PW-14-00627094`), a Contracts Finder notice id (a UUID), a source's own code (`14-2015`): a
 * word with a digit and a dash or slash, in letters, digits and `-_/.`. Dates (`2026-12-01`),
 * amounts and filters are not references; at most `max`, in order, without repeats.
 */
export function printedReferencesIn(text: string, max = 5): string[] {
  const found: string[] = [];
  for (const token of text.split(/\s+/)) {
    // A word too long to be a reference is not trimmed (see asTenderId).
    if (token.length > LONGEST_TOKEN) continue;
    const trimmed = token.replace(/^[("'“‘`*_]+|[)"'”’`*_.,;:!?]+$/g, '');
    if (trimmed.length < 5 || trimmed.length > 300) continue;
    if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(trimmed) || !/\d/.test(trimmed) || !/[-/]/.test(trimmed))
      continue;
    if (/^\d{1,4}[-/]\d{1,2}[-/]\d{1,4}$/.test(trimmed)) continue;
    if (!found.includes(trimmed)) found.push(trimmed);
    if (found.length >= max) break;
  }
  return found;
}
