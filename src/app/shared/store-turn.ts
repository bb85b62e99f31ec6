import type { KeptValueStore } from '../storage/kept-value-store.ts';
import { queuePerKey } from './queue-per-key.ts';

/** A turn's claim ends by itself after this long: a copy that died holding it frees it then. */
export const TURN_LEASE_MS = 60_000;
/**
 * How long work waits for its turn, in this copy's queue and for another copy's claim together,
 * before going ahead anyway: a person's click is never dropped, nor kept waiting without end, for a
 * turn that a slow service or a store that does not answer keeps.
 */
export const TURN_WAIT_AT_MOST_MS = 20_000;
/** The first and the longest pause between two looks at a turn another copy holds. */
const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 250;

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
 *
 * Waiting is bounded (waitAtMostMs, queue and claim together): past it, or when the store fails,
 * the work goes ahead without the turn, as it would have before turns were kept. Work that
 * outlasts its claim (TURN_LEASE_MS), or copies whose clocks differ by more than that, can also
 * overlap: the turn spares people a double write in the common case, it is no lock to rely on.
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
  const queue = local;
  const deadline = performance.now() + (options.waitAtMostMs ?? TURN_WAIT_AT_MOST_MS);
  return new Promise<T>((resolve, reject) => {
    let begun = false;
    const begin = (run: () => Promise<T>): Promise<void> => {
      begun = true;
      clearTimeout(timer);
      return run().then(resolve, reject);
    };
    // Waited too long in this copy's queue (the work ahead is slow): goes ahead now.
    const timer = setTimeout(() => void begin(work), Math.max(0, deadline - performance.now()));
    void queue(name, async () => {
      // Gone ahead already: its place in the queue is given up at once.
      if (begun) return;
      await begin(() => claimedTurn(store, `turn:${name}`, work, deadline, options));
    });
  });
}

async function claimedTurn<T>(
  store: TurnStore,
  claim: string,
  work: () => Promise<T>,
  deadline: number,
  { clock = () => new Date(), leaseMs = TURN_LEASE_MS }: TurnOptions,
): Promise<T> {
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    const now = clock();
    const until = new Date(now.getTime() + leaseMs);
    const asked = store.rememberRequest(claim, until, now);
    // A store that fails, or does not answer before the deadline: the work goes ahead without the turn.
    const claimed = await byDeadline(
      asked.catch(() => null),
      deadline,
    );
    if (claimed === undefined) {
      // The answer may still come: a claim taken after all is given back.
      void asked
        .then((late) => (late ? store.forgetRequest(claim, until) : undefined))
        .catch(() => undefined);
      return work();
    }
    if (claimed === null) return work();
    if (claimed) {
      try {
        return await work();
      } finally {
        // Not given back (the store failed): the claim ends with its lease.
        await store.forgetRequest(claim, until).catch(() => undefined);
      }
    }
    if (performance.now() >= deadline) return work();
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
  }
}

/** What `promise` gives, or undefined once `deadline` (performance.now() ms) passes first. */
function byDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - performance.now()));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
