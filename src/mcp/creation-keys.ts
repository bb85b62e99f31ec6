import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { ApiError } from '../client/errors.ts';
import { canonicalJson } from './cursor.ts';

/** How long identical creation arguments from one caller count as a retry of one creation. */
export const RETRY_WINDOW_MS = 10 * 60 * 1000;
/** Creations remembered at once; past this the oldest are forgotten first. */
const MAX_REMEMBERED = 10_000;

/**
 * The idempotency keys of creations (comments, bids): one per logical creation, so a retried
 * tool call creates one record. A key the model gives (`idempotencyKey`) is used as it is. Without
 * one, the same caller calling the same tool with the same arguments within RETRY_WINDOW_MS of
 * the first call gets the same key, so the service answers with the record already made.
 *
 * Only a creation the service may have made is remembered: one it accepted, or one whose answer
 * was lost (a timeout, a 5xx). A call it refused (a 4xx: a key it does not know, arguments it
 * refuses) is forgotten, so calls with made-up keys can neither fill the memory nor push a real
 * person's creations out of it. Identical calls in flight at once share one key.
 *
 * Calls are told apart by an HMAC, under a secret made at start, of the caller's API key, the
 * tool and its canonical arguments: the key itself is never kept, and the fingerprints mean
 * nothing outside this process.
 */
export class CreationKeys {
  private readonly remembered = new Map<string, { key: string; madeAt: number }>();
  /** Creations under way (each ends in `remembered` or is forgotten): their keys, by fingerprint. */
  private readonly underWay = new Map<string, { key: string; calls: number }>();
  private readonly secret = randomBytes(32);

  constructor(
    private readonly windowMs = RETRY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `make` with the creation's idempotency key, remembering the key as said above. */
  async create<T>(
    callerKey: string,
    tool: string,
    args: object,
    given: string | undefined,
    make: (key: string) => Promise<T>,
  ): Promise<T> {
    if (given !== undefined) return make(given);
    const fingerprint = createHmac('sha256', this.secret)
      .update(`${callerKey}\n${tool}\n${canonicalJson(args)}`)
      .digest('base64url');
    const now = this.now();
    const found = this.remembered.get(fingerprint);
    if (found && now - found.madeAt < this.windowMs) return make(found.key);
    const current = this.underWay.get(fingerprint) ?? { key: randomUUID(), calls: 0 };
    current.calls += 1;
    this.underWay.set(fingerprint, current);
    let mayHaveMade = true;
    try {
      return await make(current.key);
    } catch (error) {
      mayHaveMade = !(error instanceof ApiError && error.status >= 400 && error.status < 500);
      throw error;
    } finally {
      current.calls -= 1;
      if (current.calls === 0) this.underWay.delete(fingerprint);
      if (mayHaveMade && !this.remembered.has(fingerprint)) this.remember(fingerprint, current.key);
    }
  }

  private remember(fingerprint: string, key: string): void {
    const now = this.now();
    this.remembered.delete(fingerprint);
    this.forgetOld(now);
    this.remembered.set(fingerprint, { key, madeAt: now });
  }

  /** Entries are in the order they were made: expired ones, then the oldest over the bound, go. */
  private forgetOld(now: number): void {
    for (const [fingerprint, entry] of this.remembered) {
      if (now - entry.madeAt < this.windowMs && this.remembered.size < MAX_REMEMBERED) return;
      this.remembered.delete(fingerprint);
    }
  }
}
