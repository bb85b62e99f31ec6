/*
 * When channel posts are worked on, and how many at once: the timer, the pool of slots, pruning.
 * How each one is posted exactly once (planned, claimed, frozen, sent, settled, recorded) is
 * exactly-once-posting.ts beside it, split out of this file by issue 22 (item 4).
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ScheduledSlack } from '../adapters/scheduled-slack.ts';
import type { WorkspaceClients } from '../adapters/workspace-clients.ts';
import { FEED_READ_LIMIT } from '../features/subscriptions/content.ts';
import type { BotMetrics } from '../metrics/bot-metrics.ts';
import type { Delivery } from '../storage/delivery-store.ts';
import { type DeliveryQueue, KEEP_DELIVERIES_MS, LeaseTableQueue } from './delivery-queue.ts';
import { ExactlyOncePosting, type PostingStore } from './exactly-once-posting.ts';

export interface SchedulerOptions {
  /** The deliveries, and the reads and pause of their subscriptions (the app passes its BotStore). */
  store: PostingStore;
  /**
   * Slack for scheduled posts: `rejectRateLimitedCalls` and no retries, so a 429 comes back at once
   * and only that delivery waits (on this scheduler's clock) while other channels go on.
   */
  slack: ScheduledSlack;
  clients: WorkspaceClients;
  logger: Logger;
  clock: () => Date;
  /**
   * Which copy works on which delivery: the deliveries table's own leases by default (SQLite), or
   * a job queue (pg-boss on PostgreSQL). Started and stopped with the scheduler.
   */
  queue?: DeliveryQueue;
  /** This copy of the app, as lease owner (random by default). */
  owner?: string;
  /** How long a claimed delivery is this copy's (default 60 s: longer than any one call may take). */
  leaseMs?: number;
  /** Time between two posts in one channel (Slack allows about one a second). */
  paceMs?: number;
  /** Channels worked on at once, each a run of its deliveries (most wait for their next second). */
  concurrency?: number;
  /** How long after an unknown outcome the channel's history is read (Slack may still be storing it). */
  settleAfterMs?: number;
  /**
   * How long a post may take before its answer counts as lost (the Slack client's timeout, 10 s):
   * its ts is between the attempt and this long after (with a margin for the clocks).
   */
  postTimeoutMs?: number;
  /**
   * Without a timer (tests and benchmarks call runDue themselves); with one, how often it looks for
   * due work when nothing else wakes it (250 ms by default in the app).
   */
  pollMs?: number | null;
  /** Tenders one feed post reads at most; the rest follow in the next post (never dropped). */
  feedReadLimit?: number;
  /** Finished deliveries are kept this long (90 days), then pruned with the items they posted. */
  keepMs?: number;
  /** How often this copy prunes (at most hourly). */
  pruneEveryMs?: number;
  /**
   * How a delivery waits for its slot on the timer: real time by default; a test on a controlled
   * clock moves its clock instead.
   */
  sleep?: (ms: number) => Promise<void>;
  /** Counts what is planned, posted, settled and finished (GET /metrics). */
  metrics?: BotMetrics;
}

/** What one pass did, and when the next is worth running. */
export interface PassResult {
  posted: number;
  finished: number;
  /** The earliest moment a paced channel may post again, or null. */
  nextWakeAt: Date | null;
}

interface Tally {
  posted: number;
  finished: number;
}

/**
 * On the timer, due work is planned, claimed and built this long (plus a poll) before its time,
 * so whatever the poll, it is ready when due.
 */
const PREPARE_AHEAD_MS = 1000;
/**
 * On the timer, deliveries finishing within a quarter of the pace (at most a poll) share one claim:
 * a claim reads every open delivery (about 20 ms of CPU with 10,000 open on SQLite, bench:digests),
 * and the next post of a channel is claimed as its last one finishes, a whole pace before its slot,
 * so a quarter of it spent gathering is free.
 */
const CLAIM_GATHER_SHARE = 0.25;
const PRUNE_EVERY_MS = 3_600_000;
/** A run's length at most, whatever the lease (a channel's posts held by one copy at a time). */
const MAX_RUN = 10;

/**
 * The scheduler in the app process: plans each subscription's due deliveries, claims them with a
 * lease, and posts each exactly once (ExactlyOncePosting). Several copies on one store share the work.
 *
 * On its timer it is a pool: a delivery is claimed as soon as a slot frees (not batch by batch),
 * including the next one of a channel that has just posted, whose content is then built and
 * frozen while the channel waits for its next second; due work is planned a poll ahead and waits
 * for its due time. So at a channel's slot only the post itself is left to do.
 */
export class Scheduler {
  readonly owner: string;
  private readonly paceMs: number;
  private readonly concurrency: number;
  private readonly keepMs: number;
  private readonly pruneEveryMs: number;
  /** On a timer: waits (real time) for a near slot instead of giving the delivery back. */
  private readonly realTime: boolean;
  private readonly pollMs: number;
  /** How far ahead of its time due work is prepared (on the timer; 0 without). */
  private readonly aheadMs: number;
  /** On the timer: how long deliveries finishing together are gathered into one claim. */
  private readonly claimGatherMs: number;
  /** A channel's deliveries claimed together and posted one after another (on the timer). */
  private readonly runLength: number;
  /** The delivery this copy is posting in each channel (one at a time), by channel. */
  private readonly working = new Map<string, string>();
  private readonly inFlight = new Set<Promise<void>>();
  private loopDone: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private signalled = false;
  private waiter: (() => void) | null = null;
  private readonly sleepers = new Set<() => void>();
  private planRequested = true;
  private lastPrune = Number.NEGATIVE_INFINITY;
  readonly queue: DeliveryQueue;
  private readonly posting: ExactlyOncePosting;
  private queueStarted: Promise<void> | null = null;

  constructor(private readonly options: SchedulerOptions) {
    this.owner = options.owner ?? `app-${randomUUID().slice(0, 8)}`;
    this.queue = options.queue ?? new LeaseTableQueue(options.store);
    this.paceMs = options.paceMs ?? 1000;
    this.realTime = options.pollMs != null;
    this.pollMs = options.pollMs ?? 0;
    this.aheadMs = this.realTime ? PREPARE_AHEAD_MS + this.pollMs : 0;
    this.claimGatherMs = Math.min(this.pollMs, this.paceMs * CLAIM_GATHER_SHARE);
    const leaseMs = options.leaseMs ?? 60_000;
    const postTimeoutMs = options.postTimeoutMs ?? 10_000;
    // On the timer a channel's due posts are claimed as a run (one claim, and on PostgreSQL one
    // job, for up to this many), as long as the lease outlasts posting all of them, each taking
    // up to a pace and a post's timeout; one at a time otherwise, and without the timer (a pass
    // posts one per channel: the next would only be given back).
    this.runLength = this.realTime
      ? Math.max(1, Math.min(MAX_RUN, Math.floor(leaseMs / (this.paceMs + postTimeoutMs))))
      : 1;
    // Sleeping deliveries hold a slot each, about a second per post: a channel posting once a
    // second keeps one busy, so the slots bound the channels kept at Slack's pace (bench:digests:
    // 256 slots gave about 300 posts a second, 32 s for 10,000 posts over 2,000 channels).
    this.concurrency = options.concurrency ?? (this.realTime ? 4096 : 32);
    this.keepMs = options.keepMs ?? KEEP_DELIVERIES_MS;
    this.pruneEveryMs = options.pruneEveryMs ?? PRUNE_EVERY_MS;
    const { store, slack, clients, logger, clock } = options;
    this.posting = new ExactlyOncePosting({
      store,
      slack,
      clients,
      logger,
      clock,
      queue: this.queue,
      owner: this.owner,
      leaseMs,
      paceMs: this.paceMs,
      settleAfterMs: options.settleAfterMs ?? 30_000,
      postTimeoutMs,
      feedReadLimit: options.feedReadLimit ?? FEED_READ_LIMIT,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      // On the timer a delivery waits (real time) for a near slot instead of being given back.
      waitNear: this.realTime
        ? {
            nearMs: Math.max(this.paceMs, this.aheadMs) + this.pollMs,
            sleep: (ms) => this.sleep(ms),
            stopped: () => this.stopped,
          }
        : null,
    });
  }

  /** Tenders one feed post reads at most (tests lower it). */
  get feedReadLimit(): number {
    return this.posting.feedReadLimit;
  }

  set feedReadLimit(limit: number) {
    this.posting.feedReadLimit = limit;
  }

  /** Starts the timer's loop (when pollMs is set). */
  start(): void {
    this.stopped = false;
    if (!this.realTime || this.loopDone) return;
    // A post commits at least twice (marked, finished; a feed's content is frozen first): on SQLite the log is copied into the
    // database by a thread of its own, not inside those commits on this event loop (bench:digests).
    this.options.store.checkpointInBackground?.();
    this.loopDone = this.loop().finally(() => {
      this.loopDone = null;
    });
  }

  /** Stops the loop; deliveries waiting for a slot are given back, those being posted finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.signal();
    for (const wakeUp of [...this.sleepers]) wakeUp();
    await this.loopDone;
    await this.running;
    if (this.queueStarted) {
      await this.queueStarted.catch(() => undefined);
      this.queueStarted = null;
      await this.queue.stop();
    }
  }

  /**
   * Starts the queue, once (the first pass does; starting pg-boss is a round of SQL, a second on a
   * new database): a caller that must not count it, as bench:digests, waits for it after start().
   */
  startQueue(): Promise<void> {
    this.queueStarted ??= this.queue.start();
    return this.queueStarted;
  }

  /** Something is due now ("Send now"): look at once rather than at the next poll. */
  wake(): void {
    if (this.stopped || !this.realTime) return;
    this.planRequested = true;
    this.signal();
  }

  private signal(): void {
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter();
    else this.signalled = true;
  }

  /** Resolves on a signal (a delivery finished, a wake: true) or after `ms` (false). */
  private nextEvent(ms: number): Promise<boolean> {
    if (this.signalled) {
      this.signalled = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const done = (signalled: boolean) => {
        clearTimeout(timer);
        this.waiter = null;
        resolve(signalled);
      };
      const timer = setTimeout(() => done(false), ms);
      timer.unref?.();
      this.waiter = () => done(true);
    });
  }

  /** Real-time wait; true when it slept its time, false when the scheduler stopped meanwhile. */
  private sleep(ms: number): Promise<boolean> {
    if (this.stopped) return Promise.resolve(false);
    const { sleep } = this.options;
    if (sleep) return sleep(ms).then(() => !this.stopped);
    return new Promise((resolve) => {
      const done = (slept: boolean) => {
        clearTimeout(timer);
        this.sleepers.delete(early);
        resolve(slept);
      };
      const early = () => done(false);
      const timer = setTimeout(() => done(true), Math.max(0, ms));
      this.sleepers.add(early);
    });
  }

  /** The timer's loop: plans every poll (or wake), claims whenever a slot is free. */
  private async loop(): Promise<void> {
    const { clock, logger } = this.options;
    const tally: Tally = { posted: 0, finished: 0 };
    let lastPlan = Number.NEGATIVE_INFINITY;
    let sharedSince = Date.now();
    while (!this.stopped) {
      try {
        await this.startQueue();
        const now = clock();
        if (this.planRequested || Date.now() - lastPlan >= this.pollMs) {
          this.planRequested = false;
          // The poll is real time (the timer's), whatever the clock says.
          lastPlan = Date.now();
          // Ahead of time: what falls due within the next second is planned, claimed and built
          // now, and posted at its due time.
          await this.plan(new Date(now.getTime() + this.aheadMs));
          await this.maybePrune(now);
        }
        // Reads of a bid are shared while a burst lasts, at most a few seconds.
        if (this.inFlight.size === 0 || Date.now() - sharedSince > 5000) {
          this.posting.forgetSharedReads();
          sharedSince = Date.now();
        }
        await this.fill(tally, this.aheadMs, this.paceMs);
      } catch (error) {
        logger.error({ err: error }, 'scheduler pass failed');
      }
      if ((await this.nextEvent(this.pollMs)) && !this.planRequested) {
        // Woken by a delivery finishing (not by "Send now"): the others finishing about now share one claim.
        await new Promise((resolve) => setTimeout(resolve, this.claimGatherMs));
      }
    }
    await Promise.all(this.inFlight);
  }

  /**
   * One pass at the clock's now (tests and tools without the timer): plans what is due, then posts
   * whatever may be posted now, at most one post per channel (the next waits for the channel's pace).
   */
  async runDue(): Promise<PassResult> {
    const { clock } = this.options;
    const tally: Tally = { posted: 0, finished: 0 };
    const pass = async () => {
      await this.startQueue();
      await this.plan(clock());
      await this.maybePrune(clock());
      // One pass reads each bid once, however many channels follow it (dropped after the pass).
      this.posting.forgetSharedReads();
      for (;;) {
        await this.fill(tally, 0, 0);
        if (this.inFlight.size === 0) break;
        // Claims again as soon as any delivery finishes.
        await Promise.race(this.inFlight);
      }
    };
    this.running = pass();
    try {
      await this.running;
    } finally {
      this.running = null;
    }
    return { posted: tally.posted, finished: tally.finished, nextWakeAt: this.posting.nextPaceEnd(clock()) };
  }

  /**
   * Claims what may be worked on into the free slots and starts each channel's run (its deliveries
   * claimed together, posted one after another). `aheadMs`: pending deliveries due that much ahead
   * are claimed too (they wait for their time); `prefetchMs`: a channel whose next slot is that
   * near is not left out (its next post is built meanwhile).
   */
  private async fill(tally: Tally, aheadMs: number, prefetchMs: number): Promise<void> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const claimed = await this.posting.claim(
      this.options.clock(),
      free,
      this.working.keys(),
      aheadMs,
      prefetchMs,
      this.runLength,
    );
    const runs = new Map<string, Delivery[]>();
    for (const delivery of claimed) {
      const run = runs.get(delivery.channelId);
      if (run) run.push(delivery);
      else runs.set(delivery.channelId, [delivery]);
    }
    for (const [channel, run] of runs) {
      // Claimed again while this copy is still on it (a job fetched again after its claim was lost
      // in a database crash, or after its lease ran out): the run under way goes on, none beside it.
      // Others of a channel this copy is posting to go back until its pace allows.
      const postingThere = this.working.get(channel);
      if (postingThere !== undefined) {
        await this.posting.giveBack(run.filter((delivery) => delivery.id !== postingThere));
        continue;
      }
      const task: Promise<void> = this.postRun(channel, run, tally).finally(() => {
        this.working.delete(channel);
        this.inFlight.delete(task);
        this.signal();
      });
      this.inFlight.add(task);
    }
  }

  /**
   * Posts a channel's run in its order, each at the channel's pace (its content built while it
   * waits). One that does not finish (given back, paced far off, refused, lost) ends the run, and
   * the rest go back, so nothing of the channel passes it; as they do when the scheduler stops.
   */
  private async postRun(channel: string, run: readonly Delivery[], tally: Tally): Promise<void> {
    for (const [index, delivery] of run.entries()) {
      this.working.set(channel, delivery.id);
      const outcome = await this.posting.post(delivery);
      tally.posted += outcome.posted;
      if (outcome.finished) tally.finished++;
      if (!outcome.finished || this.stopped) {
        await this.posting.giveBack(run.slice(index + 1));
        return;
      }
    }
  }

  /** Prunes finished deliveries older than keepMs, at most once per pruneEveryMs per copy. */
  private async maybePrune(now: Date): Promise<void> {
    if (now.getTime() - this.lastPrune < this.pruneEveryMs) return;
    this.lastPrune = now.getTime();
    const pruned = await this.options.store.pruneDeliveries(new Date(now.getTime() - this.keepMs));
    if (pruned.deliveries > 0 || pruned.items > 0)
      this.options.logger.info(pruned, 'pruned deliveries older than the keeping time');
  }

  /** Plans one delivery for each due subscription (after downtime: the latest period, the rest skipped). */
  plan(now: Date): Promise<number> {
    return this.posting.plan(now);
  }
}
