import type { RequestToRemember } from '../storage/seen-requests.ts';

/**
 * What became of a slash command offered to the answer workers (ANSWER_WORKERS): 'handed' once
 * stored, so the receiver acknowledges it without running the app; 'replayed' when the signed
 * request that carried it was seen before (nothing stored: refused as any replay); 'declined' when
 * it was not taken (nothing remembered: the receiver's own app answers it).
 */
export type HandOff = 'handed' | 'replayed' | 'declined';

/** Offers a verified command with the request to remember in the same write (see CommandQueueStore.queueCommand). */
export type HandOffCommand = (body: Record<string, unknown>, request: RequestToRemember) => Promise<HandOff>;
