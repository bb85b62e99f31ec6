import type { KeptValueStore } from '../storage/kept-value-store.ts';
import { queuePerKey } from './queue-per-key.ts';

/** A turn's claim ends by itself after this long: a copy that died holding it frees it then. */
export const TURN_LEASE_MS = 60_000;
/**
 * How long work waits for another copy's turn before going ahead anyway: a person's click is
 * never dropped for a turn that a slow service keeps long.
 */
export const TURN_WAIT_AT_MOST_MS = 20_000;
/** The first and the longest pause between two looks at a turn another copy holds. */
const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 100;

export type TurnStore = Pick<KeptValueStore, 'rememberRequest' | 'forgetRequest'>;

export interface TurnOptions {
  clock?: () => Date;
  leaseMs?: number;
  waitAtMostMs?: number;
}

/** Each store object (one copy of the app) queues its own work for a name before claiming it. */
const localTurns = new WeakMap<TurnStore, ReturnType<typeof queuePerKey>>();

/**
 * Runs `work` in `name`'s turn on every copy of the app that shares `store`: work for the same
 * name runs one at a time, whichever copy it reached. Within a copy, work waits in a queue; the
 * turn itself is a claim in the store (a remembered request, atomic on SQLite and PostgreSQL),
 * looked at again every few milliseconds while another copy holds it, and given back when the
 * work ends, however it ends.
 */
export function inStoreTurn<T>(
  store: TurnStore,
  name: string,
  work: () => Promise<T>,
  options: TurnOptions = {},
): Promise<T> {
  let local = localTurns.get(store);
  if (!local) {
    local = queuePerKey();
    localTurns.set(store, local);
  }
  return local(name, () => claimedTurn(store, `turn:${name}`, work, options));
}

async function claimedTurn<T>(
  store: TurnStore,
  claim: string,
  work: () => Promise<T>,
  { clock = () => new Date(), leaseMs = TURN_LEASE_MS, waitAtMostMs = TURN_WAIT_AT_MOST_MS }: TurnOptions,
): Promise<T> {
  // Waited on this process's own timer (a test's fixed clock must not make the wait endless).
  const started = performance.now();
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const now = clock();
    const until = new Date(now.getTime() + leaseMs);
    if (await store.rememberRequest(claim, until, now)) {
      try {
        return await work();
      } finally {
        // Not given back (the store failed): the claim ends with its lease.
        await store.forgetRequest(claim, until).catch(() => undefined);
      }
    }
    if (performance.now() - started >= waitAtMostMs) return work();
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
  }
}
