import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '../client/errors.ts';
import { canonicalJson } from './cursor.ts';

/** How long identical creation arguments from one caller count as a retry of one creation. */
export const RETRY_WINDOW_MS = 10 * 60 * 1000;
/** Creations remembered at once, over all callers. */
export const MAX_REMEMBERED = 10_000;
/** Creations remembered for one caller: past this, that caller's own oldest are forgotten. */
export const MAX_REMEMBERED_PER_CALLER = 500;
/** Creations under way shared between identical calls, per caller and in all. */
const MAX_UNDER_WAY_PER_CALLER = 100;
const MAX_UNDER_WAY = 10_000;

interface Remembered {
  caller: string;
  key: string;
  madeAt: number;
  /** The service accepted it (so the caller's key is real); else only its answer was lost. */
  accepted: boolean;
}

/**
 * The idempotency keys of creations (comments, bids): one per logical creation, so a retried
 * tool call creates one record. A key the model gives (`idempotencyKey`) is used as it is. Without
 * one, the same caller calling the same tool with the same arguments within RETRY_WINDOW_MS of
 * the first call gets the same key, so the service answers with the record already made.
 *
 * Only a creation the service may have made is remembered: one it accepted, or one whose answer
 * was lost (a timeout, a 5xx). A call it refused (a 4xx: a key it does not know, arguments it
 * refuses) is forgotten, so calls with made-up keys can neither fill the memory nor push a real
 * person's creations out of it. Identical calls in flight at once share one key (a caller has at
 * most MAX_UNDER_WAY_PER_CALLER such shared keys; past that a call gets its own).
 *
 * The memory is bounded per caller and in all. A caller over its own bound forgets its own oldest
 * creations. When the whole memory is full, the expired go first, then creations whose answer was
 * lost (oldest first; a made-up key can only reach these, and only through a service that did not
 * answer): first those of callers with no creation the service accepted, so a made-up key's flood
 * during an outage pushes out no known caller's; only then the oldest of the caller holding the
 * most: one caller's flood of real creations pushes out its own before anyone else's.
 *
 * Calls are told apart by an HMAC, under a secret made at start, of the caller's API key, the
 * tool and its canonical arguments: the key itself is never kept, and the fingerprints mean
 * nothing outside this process.
 */
export class CreationKeys {
  /** Every remembered creation by fingerprint, in the order remembered (so oldest first). */
  private readonly remembered = new Map<string, Remembered>();
  /** Each caller's remembered fingerprints, oldest first. */
  private readonly byCaller = new Map<string, Set<string>>();
  /**
   * Callers with a creation the service accepted still remembered: their keys are real. A made-up
   * key never joins (the service refuses it), so it is bounded by `byCaller`.
   */
  private readonly proven = new Set<string>();
  /** Creations under way (each ends in `remembered` or is forgotten): their keys, by fingerprint. */
  private readonly underWay = new Map<string, { key: string; calls: number }>();
  /** How many of `underWay` each caller has. */
  private readonly underWayByCaller = new Map<string, number>();
  private readonly secret = randomBytes(32);

  constructor(
    private readonly windowMs = RETRY_WINDOW_MS,
    private readonly now: () => number = Date.now,
    private readonly bounds = {
      total: MAX_REMEMBERED,
      perCaller: MAX_REMEMBERED_PER_CALLER,
      underWayPerCaller: MAX_UNDER_WAY_PER_CALLER,
      underWay: MAX_UNDER_WAY,
    },
  ) {}

  /** How many creations are remembered (for tests). */
  get size(): number {
    return this.remembered.size;
  }

  /** Runs `make` with the creation's idempotency key, remembering the key as said above. */
  async create<T>(
    callerKey: string,
    tool: string,
    args: object,
    given: string | undefined,
    make: (key: string) => Promise<T>,
    /**
     * Whether a record the service answers a remembered key with is gone since (a comment
     * deleted, a bid archived): the same call is then a new creation, made with a new key, not a
     * retry answered with the record nobody sees any more.
     */
    gone: (made: T) => boolean = () => false,
  ): Promise<T> {
    if (given !== undefined) return make(given);
    const caller = this.hmac(`caller\n${callerKey}`);
    const fingerprint = this.hmac(`${callerKey}\n${tool}\n${canonicalJson(args)}`);
    const found = this.remembered.get(fingerprint);
    if (found && this.now() - found.madeAt < this.windowMs) {
      const made = await make(found.key);
      found.accepted = true;
      this.proven.add(found.caller);
      if (!gone(made)) return made;
      // Only the entry read is forgotten: an identical call that found it gone too, and was
      // quicker, may have remembered the new creation's key already, and that one is this call's.
      if (this.remembered.get(fingerprint) === found) this.forget(fingerprint);
      const fresh = this.remembered.get(fingerprint);
      if (fresh && this.now() - fresh.madeAt < this.windowMs) return make(fresh.key);
    }
    let current = this.underWay.get(fingerprint);
    let shared = current !== undefined;
    if (!current) {
      current = { key: randomUUID(), calls: 0 };
      const callerUnderWay = this.underWayByCaller.get(caller) ?? 0;
      shared = callerUnderWay < this.bounds.underWayPerCaller && this.underWay.size < this.bounds.underWay;
      if (shared) {
        this.underWay.set(fingerprint, current);
        this.underWayByCaller.set(caller, callerUnderWay + 1);
      }
    }
    current.calls += 1;
    let outcome: 'accepted' | 'lost' | 'refused' = 'lost';
    try {
      const made = await make(current.key);
      outcome = 'accepted';
      return made;
    } catch (error) {
      if (error instanceof ApiError && error.status >= 400 && error.status < 500) outcome = 'refused';
      throw error;
    } finally {
      current.calls -= 1;
      if (shared && current.calls === 0) {
        this.underWay.delete(fingerprint);
        const left = (this.underWayByCaller.get(caller) ?? 1) - 1;
        if (left > 0) this.underWayByCaller.set(caller, left);
        else this.underWayByCaller.delete(caller);
      }
      if (outcome !== 'refused') this.remember(caller, fingerprint, current.key, outcome === 'accepted');
    }
  }

  private hmac(text: string): string {
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }

  private remember(caller: string, fingerprint: string, key: string, accepted: boolean): void {
    const now = this.now();
    const known = this.remembered.get(fingerprint);
    if (known && known.key === key && now - known.madeAt < this.windowMs) {
      // An identical call made at once ended first: this one only says whether it was accepted.
      known.accepted ||= accepted;
      if (accepted) this.proven.add(caller);
      return;
    }
    if (known) this.forget(fingerprint);
    this.forgetExpired(now);
    const own = this.byCaller.get(caller) ?? new Set<string>();
    this.byCaller.set(caller, own);
    for (const oldest of own) {
      if (own.size < this.bounds.perCaller) break;
      this.forget(oldest);
    }
    if (this.remembered.size >= this.bounds.total) this.forgetOneForRoom();
    own.add(fingerprint);
    this.byCaller.set(caller, own);
    this.remembered.set(fingerprint, { caller, key, madeAt: now, accepted });
    if (accepted) this.proven.add(caller);
  }

  private forget(fingerprint: string): void {
    const entry = this.remembered.get(fingerprint);
    if (!entry) return;
    this.remembered.delete(fingerprint);
    const own = this.byCaller.get(entry.caller);
    own?.delete(fingerprint);
    if (own && own.size === 0) {
      this.byCaller.delete(entry.caller);
      this.proven.delete(entry.caller);
    }
  }

  /** Entries are in the order they were remembered: the expired are at the front. */
  private forgetExpired(now: number): void {
    for (const [fingerprint, entry] of this.remembered) {
      if (now - entry.madeAt < this.windowMs) return;
      this.forget(fingerprint);
    }
  }

  /**
   * The whole memory is full: a lost answer's creation goes first, of a caller the service never
   * accepted before one it did (a made-up key's flood during an outage pushes out only such), else
   * the largest caller's oldest.
   */
  private forgetOneForRoom(): void {
    let lostOfProven: string | undefined;
    for (const [fingerprint, entry] of this.remembered) {
      if (entry.accepted) continue;
      if (!this.proven.has(entry.caller)) {
        this.forget(fingerprint);
        return;
      }
      lostOfProven ??= fingerprint;
    }
    if (lostOfProven !== undefined) {
      this.forget(lostOfProven);
      return;
    }
    let largest: Set<string> | undefined;
    for (const own of this.byCaller.values()) if (!largest || own.size > largest.size) largest = own;
    const oldest = largest?.values().next().value;
    if (oldest !== undefined) this.forget(oldest);
  }
}
