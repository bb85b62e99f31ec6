/** How the answer workers are run: their priority, lease, concurrency and the longest hold. */

/**
 * How much lower the answer workers run than the receiver (Unix nice). Acknowledging within 3 s is
 * what Slack enforces; an answer a moment later is only later. When the CPU is short, the
 * receiver's acknowledgements go first.
 */
export const ANSWER_WORKER_NICENESS = 19;

/** How long a worker holds a command before another copy may take it (ANSWER_LEASE_SECONDS). */
export const COMMAND_LEASE_MS = 60_000;

/** Commands one worker answers at once (each mostly waits on the service and Slack). */
export const WORKER_CONCURRENCY = 16;

/**
 * Longest the answers wait while the receiver is pressed (`holding`; ANSWER_HOLD_SECONDS), summed
 * over the holds since the answers last caught up: a burst shorter than this is acknowledged at
 * full speed and answered when it ends; past it, answers and acknowledgements share the CPU again
 * until the answers have caught up.
 */
export const HOLD_AT_MOST_MS = 30_000;

/** Commands timed at once for the answer histogram (beyond, a command is answered but not timed). */
export const TIMED_AT_MOST = 10_000;

/** A busy worker is given stored commands once it has room for this many. */
export const CLAIM_AT_LEAST = 4;

/** A worker that stayed up this long has its restart delay reset (it was not dying on start). */
export const STAYED_UP_MS = 30_000;

/** Fields of a command nobody answering it needs, so not kept: Slack's old verification token and
 * the trigger (a queued command never opens a modal: `/tender connect` stays in the receiver). */
export const NOT_KEPT = ['token', 'trigger_id'];
