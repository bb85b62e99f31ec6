import type { KeptValueStore } from '../storage/kept-value-store.ts';

/** What `firstWithin` answers: whether this is the first of its repeats, and how to let the next one through. */
export interface RepeatClaim {
  first: boolean;
  /** The act failed (not posted): the next try goes ahead at once, within the window or not. */
  release(): Promise<void>;
}

/**
 * One act (a share of a tender in a channel, a "Send now") claimed for `windowMs`: a double click
 * or an impatient third click, on any copy of the app (the claim is in the shared store, and
 * atomic), is told it was done moments ago instead of posting again. A released claim (the post
 * failed) lets the next try through: the window counts from the last try that went ahead.
 */
export async function firstWithin(
  store: Pick<KeptValueStore, 'rememberRequest' | 'saveState' | 'loadState'>,
  name: string,
  windowMs: number,
  now: Date,
): Promise<RepeatClaim> {
  const until = new Date(now.getTime() + windowMs);
  const round = Number((await store.loadState(`repeat:${name}`, now)) ?? 0);
  const first = await store.rememberRequest(`repeat:${name}#${round}`, until, now);
  return {
    first,
    release: () => store.saveState(`repeat:${name}`, String(round + 1), until),
  };
}
