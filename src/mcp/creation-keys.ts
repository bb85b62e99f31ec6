import { createHmac, randomBytes, randomUUID } from 'node:crypto';
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
 * Calls are told apart by an HMAC, under a secret made at start, of the caller's API key, the
 * tool and its canonical arguments: the key itself is never kept, and the fingerprints mean
 * nothing outside this process.
 */
export class CreationKeys {
  private readonly remembered = new Map<string, { key: string; madeAt: number }>();
  private readonly secret = randomBytes(32);

  constructor(
    private readonly windowMs = RETRY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  keyFor(callerKey: string, tool: string, args: object, given: string | undefined): string {
    if (given !== undefined) return given;
    const fingerprint = createHmac('sha256', this.secret)
      .update(`${callerKey}\n${tool}\n${canonicalJson(args)}`)
      .digest('base64url');
    const now = this.now();
    const found = this.remembered.get(fingerprint);
    if (found && now - found.madeAt < this.windowMs) return found.key;
    this.remembered.delete(fingerprint);
    this.forgetOld(now);
    const key = randomUUID();
    this.remembered.set(fingerprint, { key, madeAt: now });
    return key;
  }

  /** Entries are in the order they were made: expired ones, then the oldest over the bound, go. */
  private forgetOld(now: number): void {
    for (const [fingerprint, entry] of this.remembered) {
      if (now - entry.madeAt < this.windowMs && this.remembered.size < MAX_REMEMBERED) return;
      this.remembered.delete(fingerprint);
    }
  }
}
