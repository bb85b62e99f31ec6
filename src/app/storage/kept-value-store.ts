/** Values kept for a while: requests seen (replays refused) and states too big for Slack. */
export interface KeptValueStore {
  /**
   * Remembers a request (its signature, or an event id) until `expiresAt`; resolves true when it
   * was new, false when it was seen before. Shared by every copy of the app on the same store, so
   * a replay sent to another copy is refused too. Expired entries are pruned as it goes.
   */
  rememberRequest(id: string, expiresAt: Date, now?: Date): Promise<boolean>;
  /**
   * Forgets what `rememberRequest(id, expiresAt)` remembered, only if it is still that entry (the
   * same expiry): a claim that expired and was taken by another is not undone by its first holder.
   */
  forgetRequest(id: string, expiresAt: Date): Promise<void>;
  /** A state too big for its Slack value (src/app/shared/values/codec.ts), kept under its token until `expiresAt`. */
  saveState(token: string, json: string, expiresAt: Date): Promise<void>;
  /** The kept state, or null when unknown or expired. */
  loadState(token: string, now: Date): Promise<string | null>;
}
