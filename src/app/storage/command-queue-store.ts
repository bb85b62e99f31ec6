import type { RequestToRemember } from './seen-requests.ts';

/** A slash command to keep for the answer workers. */
export interface CommandToQueue {
  /** Time-ordered (UUIDv7-shaped): claims take the smallest first. */
  id: string;
  teamId: string | null;
  /** The command's fields as JSON. */
  body: string;
  receivedAt: Date;
  /** Stored already claimed by this worker, until `leaseUntil`. */
  owner?: string;
  leaseUntil?: Date;
}

/** A queued slash command, as an answer worker claimed it. */
export interface QueuedCommand {
  id: string;
  teamId: string | null;
  body: string;
  receivedAt: Date;
  /** This claim included. */
  attempts: number;
}

/** Slash commands the receiver acknowledged, until an answer worker has answered them. */
export interface CommandQueueStore {
  /**
   * A slash command the receiver acknowledged, kept until an answer worker (ANSWER_WORKERS) has
   * answered it: acknowledged means stored, whatever happens to the copy that took it. With
   * `owner`, it is stored already claimed by that worker until `leaseUntil` (its first attempt).
   * Stored only if `request` (the signed request that carried it) was not seen before
   * (KeptValueStore.rememberRequest): the request remembered and the command stored in one write,
   * all or nothing, so a replay is refused by the same write. False for a request seen before:
   * nothing stored.
   */
  queueCommand(command: CommandToQueue, request: RequestToRemember): Promise<boolean>;
  /**
   * Takes up to `limit` of the oldest queued commands that no worker holds (or whose holder's lease
   * ended) for `owner` until `now + leaseMs`, counting the attempt: each is taken by one worker,
   * whichever copy of the app asks. Oldest first.
   */
  claimCommands(owner: string, now: Date, leaseMs: number, limit: number): Promise<QueuedCommand[]>;
  /** Answered, or given up: removed from the queue. */
  finishCommands(ids: readonly string[]): Promise<void>;
  /**
   * Extends to `until` the lease of the commands `ids` that `owners` (live workers answering) still
   * hold. Named by id, each found by its key: a statement over the owner alone read the whole queue,
   * every second, on the receiver's thread (12 ms with 60,000 waiting in bench:bot).
   */
  renewCommands(held: { owners: readonly string[]; ids: readonly string[] }, until: Date): Promise<void>;
  /** What `owner` holds is free to take at once (its worker died); resolves with how many. */
  releaseCommands(owner: string): Promise<number>;
  /** Commands waiting or being answered. */
  queuedCommandCount(): Promise<number>;
}
