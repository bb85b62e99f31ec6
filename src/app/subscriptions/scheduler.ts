/*
 * Over 500 lines for now: planning, claiming, sending and settling channel posts are one exactly-
 * once mechanism; the rebuild gives it a module of its own with the store's delivery methods
 * behind its interface (the open issue "A house a Bolt maintainer would hold up", item 4), in one
 * step.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ScheduledSlack } from '../adapters/scheduled-slack.ts';
import type { KeySource, WorkspaceClients } from '../adapters/workspace-clients.ts';
import type { Message } from '../blocks/messages.ts';
import { type Mrkdwn, mention, mrkdwn, text } from '../blocks/mrkdwn.ts';
import type { BotStore, Delivery, Subscription } from '../storage/bot-store.ts';
import { type Built, buildDelivery, FEED_READ_LIMIT, type Frozen } from './content.ts';
import { type DeliveryQueue, LeaseTableQueue } from './delivery-queue.ts';
import { pausedNotice, subscriptionSummary } from './describe.ts';
import { catchUp } from './schedule.ts';
import { DELIVERY_EVENT_TYPE, type HistoryPage, readWindowPage } from './settle.ts';
import { classifySlackError } from './slack-errors.ts';

export interface SchedulerOptions {
  store: BotStore;
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
  /** Deliveries worked on at once (on the timer most of them wait for their channel's next second). */
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
 * On the timer, due work is planned, claimed and frozen this long (plus a poll) before its time,
 * so whatever the poll, it is ready when due.
 */
const PREPARE_AHEAD_MS = 1000;
/**
 * On the timer, deliveries finishing within this long share one claim (a claim reads every open
 * delivery; the next post of a channel is claimed about a second before its slot, so this is free).
 */
const CLAIM_GATHER_MS = 50;
/**
 * Pages of an attempt's window read in one turn: a window is seconds long, so one page nearly
 * always; where history is limited to a call a minute, the next page waits for Slack's Retry-After.
 */
const SETTLE_PAGES_PER_TURN = 10;

export const KEEP_DELIVERIES_MS = 90 * 86_400_000;
export const PRUNE_EVERY_MS = 3_600_000;

/**
 * The scheduler in the app process: plans each subscription's due deliveries, claims them with a
 * lease, and posts each exactly once (see deliver()). Several copies on one store share the work.
 *
 * On its timer it is a pool: a delivery is claimed as soon as a slot frees (not batch by batch),
 * including the next one of a channel that has just posted, whose content is then built and
 * frozen while the channel waits for its next second; due work is planned a poll ahead and waits
 * for its due time. So at a channel's slot only the post itself is left to do.
 */
export class Scheduler {
  readonly owner: string;
  /** Tenders one feed post reads at most (tests lower it). */
  feedReadLimit: number;
  private readonly leaseMs: number;
  private readonly paceMs: number;
  private readonly concurrency: number;
  private readonly settleAfterMs: number;
  private readonly postTimeoutMs: number;
  /** When each workspace's history may be read again (after Slack's 429 for it), clock ms. */
  private readonly historyFreeAt = new Map<string, number>();
  private readonly keepMs: number;
  private readonly pruneEveryMs: number;
  /** On a timer: waits (real time) for a near slot instead of giving the delivery back. */
  private readonly realTime: boolean;
  private readonly pollMs: number;
  /** How far ahead of its time due work is prepared (on the timer; 0 without). */
  private readonly aheadMs: number;
  /** When each channel may next be posted to by this copy. */
  private readonly paceUntil = new Map<string, number>();
  private readonly working = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private loopDone: Promise<void> | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private signalled = false;
  private waiter: (() => void) | null = null;
  private readonly sleepers = new Set<() => void>();
  private planRequested = true;
  private lastPrune = Number.NEGATIVE_INFINITY;
  private shared = new Map<string, Promise<unknown>>();
  readonly queue: DeliveryQueue;
  private queueStarted: Promise<void> | null = null;

  constructor(private readonly options: SchedulerOptions) {
    this.owner = options.owner ?? `app-${randomUUID().slice(0, 8)}`;
    this.queue = options.queue ?? new LeaseTableQueue(options.store);
    this.leaseMs = options.leaseMs ?? 60_000;
    this.paceMs = options.paceMs ?? 1000;
    this.realTime = options.pollMs != null;
    this.pollMs = options.pollMs ?? 0;
    this.aheadMs = this.realTime ? PREPARE_AHEAD_MS + this.pollMs : 0;
    // Sleeping deliveries hold a slot each: enough for every channel of a busy workspace.
    this.concurrency = options.concurrency ?? (this.realTime ? 256 : 32);
    this.settleAfterMs = options.settleAfterMs ?? 30_000;
    this.postTimeoutMs = options.postTimeoutMs ?? 10_000;
    this.feedReadLimit = options.feedReadLimit ?? FEED_READ_LIMIT;
    this.keepMs = options.keepMs ?? KEEP_DELIVERIES_MS;
    this.pruneEveryMs = options.pruneEveryMs ?? PRUNE_EVERY_MS;
  }

  /** Starts the timer's loop (when pollMs is set). */
  start(): void {
    this.stopped = false;
    if (!this.realTime || this.loopDone) return;
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

  /** The queue is started by the first pass (starting pg-boss is a round of SQL). */
  private startQueue(): Promise<void> {
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
          // Ahead of time: what falls due within the next second is planned, claimed and frozen
          // now, and posted at its due time.
          await this.plan(new Date(now.getTime() + this.aheadMs));
          await this.maybePrune(now);
        }
        // Reads of a bid are shared while a burst lasts, at most a few seconds.
        if (this.inFlight.size === 0 || Date.now() - sharedSince > 5000) {
          this.shared = new Map();
          sharedSince = Date.now();
        }
        await this.fill(tally, this.aheadMs, this.paceMs);
      } catch (error) {
        logger.error({ err: error }, 'scheduler pass failed');
      }
      if (await this.nextEvent(this.pollMs)) {
        // Woken by a delivery finishing: the others finishing about now share one claim.
        await new Promise((resolve) => setTimeout(resolve, CLAIM_GATHER_MS));
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
      this.shared = new Map();
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
    const paced = [...this.paceUntil.values()].filter((until) => until > clock().getTime());
    return {
      posted: tally.posted,
      finished: tally.finished,
      nextWakeAt: paced.length > 0 ? new Date(Math.min(...paced)) : null,
    };
  }

  /**
   * Claims what may be worked on into the free slots and starts each. `aheadMs`: pending
   * deliveries due that much ahead are claimed too (they wait for their time); `prefetchMs`: a
   * channel whose next slot is that near is not left out (its next post is built meanwhile).
   */
  private async fill(tally: Tally, aheadMs: number, prefetchMs: number): Promise<void> {
    const { store, clock, logger } = this.options;
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const now = clock();
    const busy = [...this.working];
    for (const [channel, until] of this.paceUntil) {
      if (until > now.getTime() + prefetchMs) busy.push(channel);
      else if (until <= now.getTime()) this.paceUntil.delete(channel);
    }
    const claimed = await this.queue.claim({
      owner: this.owner,
      now,
      leaseMs: this.leaseMs,
      limit: free,
      busyChannels: busy,
      aheadMs,
    });
    for (const delivery of claimed) {
      this.working.add(delivery.channelId);
      const task: Promise<void> = this.deliver(delivery)
        .then(
          (outcome) => {
            tally.posted += outcome.posted;
            if (outcome.finished) tally.finished++;
          },
          async (error: unknown) => {
            logger.error({ err: error, deliveryId: delivery.id }, 'delivery failed unexpectedly');
            await store
              .releaseDelivery(delivery.id, this.owner, new Date(clock().getTime() + 60_000), true)
              .catch(() => undefined);
          },
        )
        .then(() =>
          this.queue
            .done(delivery.id)
            .catch((error: unknown) =>
              logger.warn(
                { err: error, deliveryId: delivery.id },
                'could not tell the queue a delivery is done',
              ),
            ),
        )
        .finally(() => {
          this.working.delete(delivery.channelId);
          this.inFlight.delete(task);
          this.signal();
        });
      this.inFlight.add(task);
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

  /**
   * Waits for the delivery's due time and its channel's next slot when they are near (on the
   * timer), else gives the delivery back until then (its frozen content kept); false when given back.
   */
  private async waitForSlot(delivery: Delivery, keepAttempt: boolean): Promise<boolean> {
    const { store, clock } = this.options;
    // A few waits at most: a clock that does not move (a stopped test clock) never reaches the slot.
    for (let waits = 0; ; waits++) {
      const now = clock().getTime();
      const slot = Math.max(delivery.dueAt.getTime(), this.paceUntil.get(delivery.channelId) ?? 0);
      if (slot <= now) return true;
      const near = slot - now <= Math.max(this.paceMs, this.aheadMs) + this.pollMs;
      if (this.realTime && !this.stopped && near && waits < 3) {
        if (await this.sleep(slot - now)) continue;
      }
      await store.releaseDelivery(delivery.id, this.owner, new Date(slot), keepAttempt);
      return false;
    }
  }

  /** Plans one delivery for each due subscription (after downtime: the latest period, the rest skipped). */
  async plan(now: Date): Promise<number> {
    const { store } = this.options;
    let planned = 0;
    // Subscriptions on one schedule (cadence, time, zone, next run) share one computation.
    const computed = new Map<string, ReturnType<typeof catchUp>>();
    for (let round = 0; round < 100; round++) {
      const due = await store.dueSubscriptions(now, 500);
      if (due.length === 0) break;
      const plans = due.map((subscription) => {
        const key = `${subscription.cadence}|${subscription.localTime}|${subscription.timeZone}|${subscription.nextRunAt.getTime()}`;
        let next = computed.get(key);
        if (!next) {
          next = catchUp(subscription, subscription.nextRunAt, now);
          computed.set(key, next);
        }
        return {
          subscriptionId: subscription.id,
          expectedNextRunAt: subscription.nextRunAt,
          nextRunAt: next.nextRunAt,
          skipped: next.skipped,
          delivery: { id: randomUUID(), dueAt: next.dueAt },
        };
      });
      // One transaction for the round: each subscription still moves (and plans) only once.
      planned += await store.planDeliveries(plans);
    }
    // Planned now or earlier, given back, sent now, abandoned by a stopped copy: all offered.
    await this.queue.offer(now);
    return planned;
  }

  /**
   * Posts one claimed delivery exactly once:
   * 1. its content is built and frozen (with the items it posts reserved) before anything is sent;
   * 2. each part is marked as being sent in the store, then posted with its delivery id and part
   *    number in the message metadata, then recorded with Slack's ts (only while the lease is ours);
   * 3. a part whose outcome is unknown (a crash, a timeout, an answer lost) is looked for in the
   *    channel's history of its attempt's window before it is ever posted again (settle()).
   */
  private async deliver(delivery: Delivery): Promise<{ posted: number; finished: boolean }> {
    const { store, logger } = this.options;
    const subscription = await store.getSubscription(delivery.teamId, delivery.subscriptionId);
    if (!subscription || subscription.pausedReason) {
      await store.finishDelivery(delivery.id, this.owner, {
        state: 'failed',
        outcome: subscription ? `paused: ${subscription.pausedReason}` : 'unsubscribed',
      });
      return { posted: 0, finished: true };
    }
    let frozen: Frozen;
    if (delivery.frozen) frozen = JSON.parse(delivery.frozen) as Frozen;
    else {
      const built = await this.freeze(delivery, subscription);
      if (built === 'retry') return { posted: 0, finished: false };
      if (built.kind === 'empty') {
        await store.finishDelivery(delivery.id, this.owner, {
          state: 'empty',
          outcome: null,
          ...(built.cursor ? { cursor: { json: built.cursor.json, at: new Date(built.cursor.at) } } : {}),
        });
        return { posted: 0, finished: true };
      }
      frozen = built.frozen;
    }

    const posted = [...delivery.postedTs];
    if (delivery.attemptingPart !== null && delivery.attemptingPart === posted.length) {
      const settled = await this.settle(delivery, subscription, delivery.attemptingPart);
      if (settled === 'stop') return { posted: 0, finished: false };
      if (settled !== null) {
        if (!(await store.recordPart(delivery.id, this.owner, delivery.attemptingPart, settled)))
          return { posted: 0, finished: false };
        posted.push(settled);
        logger.info(
          { deliveryId: delivery.id, part: delivery.attemptingPart },
          'settled from history: not posted again',
        );
      }
    }

    let postedNow = 0;
    const finish = {
      state: 'sent' as const,
      outcome: null,
      ...(frozen.cursor ? { cursor: { json: frozen.cursor.json, at: new Date(frozen.cursor.at) } } : {}),
      skippedSaid: frozen.skippedSaid,
    };
    for (let part = posted.length; part < frozen.parts.length; part++) {
      // Each part waits for the channel's pace (and the first for the due time): only the post
      // itself is left for the slot. Far off, the delivery is given back until then.
      if (!(await this.waitForSlot(delivery, false))) return { posted: postedNow, finished: false };
      const outcome = await this.postPart(delivery, subscription, frozen.parts[part] as Message, part);
      if (outcome === 'stop') return { posted: postedNow, finished: false };
      const last = part === frozen.parts.length - 1;
      // The last part is recorded and the delivery finished in one step.
      const recorded = last
        ? await store.finishDelivery(delivery.id, this.owner, { ...finish, lastPart: { part, ts: outcome } })
        : await store.recordPart(delivery.id, this.owner, part, outcome);
      if (!recorded) {
        // Another copy took the delivery over meanwhile (it settles from history): not ours to record.
        logger.warn({ deliveryId: delivery.id, part }, 'lease lost before the post was recorded');
        return { posted: postedNow + 1, finished: false };
      }
      postedNow++;
      if (last) return { posted: postedNow, finished: true };
    }
    // Every part was already posted (settled from history): finished now.
    const finishedNow = await store.finishDelivery(delivery.id, this.owner, finish);
    return { posted: postedNow, finished: finishedNow };
  }

  /** Builds and freezes the content; 'retry' when the service failed (tried again later, never lost). */
  private async freeze(delivery: Delivery, subscription: Subscription): Promise<Built | 'retry'> {
    const { store, clients, clock, logger } = this.options;
    const exclude = new Set<string>();
    for (let attempt = 0; attempt < 4; attempt++) {
      let built: Built;
      try {
        // Read as its subscriber reads: their own key where they linked one (their bookmarks, the
        // bids they can see), else the workspace's.
        const { client, source } = await clients.forPerson(subscription.teamId, subscription.createdBy);
        built = await buildDelivery({
          client,
          reader: readerOf(subscription, source),
          subscription,
          delivery,
          now: clock(),
          exclude,
          shared: this.shared,
          delivered: (keys) => store.deliveredItems(subscription.id, keys),
          feedReadLimit: this.feedReadLimit,
        });
      } catch (error) {
        // Backoff doubles from a minute to half an hour; the delivery waits, it is not dropped.
        const waitMs = Math.min(30 * 60_000, 60_000 * 2 ** Math.min(5, delivery.attempts - 1));
        logger.warn(
          { err: error, deliveryId: delivery.id, subscriptionId: subscription.id, retryInMs: waitMs },
          'could not read the service for a scheduled post; trying again later',
        );
        await store.releaseDelivery(delivery.id, this.owner, new Date(clock().getTime() + waitMs), false);
        return 'retry';
      }
      if (built.kind === 'empty') return built;
      const frozen = await store.freezeDelivery(
        delivery.id,
        this.owner,
        JSON.stringify(built.frozen),
        built.frozen.itemKeys,
        built.listings,
      );
      if (frozen.ok) return built;
      if (frozen.lost) return 'retry';
      for (const key of frozen.taken) exclude.add(key);
    }
    await store.releaseDelivery(delivery.id, this.owner, new Date(clock().getTime() + 60_000), false);
    return 'retry';
  }

  /** Posts one part: its ts, or 'stop' when the delivery was given back, finished or lost. */
  private async postPart(
    delivery: Delivery,
    subscription: Subscription,
    message: Message,
    part: number,
  ): Promise<string | 'stop'> {
    const { store, clock, slack } = this.options;
    const now = clock();
    // The window its ts will be in, recorded before it is sent: what settling reads if the answer is lost.
    const attemptUntil = new Date(now.getTime() + this.postTimeoutMs);
    if (!(await store.markAttempt(delivery.id, this.owner, part, now, this.leaseMs, attemptUntil)))
      return 'stop';
    this.paceUntil.set(delivery.channelId, now.getTime() + this.paceMs);
    try {
      const answer = await slack.chat.postMessage({
        teamId: delivery.teamId,
        channel: delivery.channelId,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        unfurl_media: false,
        metadata: {
          event_type: DELIVERY_EVENT_TYPE,
          event_payload: { delivery_id: delivery.id, part, subscription_id: subscription.id },
        },
      });
      if (!answer.ts) throw new Error('chat.postMessage answered without a ts');
      // The pace counts from Slack's answer (when it accepted the post), not from the request.
      this.paceUntil.set(delivery.channelId, clock().getTime() + this.paceMs);
      return answer.ts;
    } catch (error) {
      return this.afterSlackError(error, delivery, subscription, 'post');
    }
  }

  /**
   * Settles a part whose outcome is unknown: its ts when the channel's history of the attempt's
   * window holds it, null when the whole window was read and it is not there (so it is posted),
   * 'stop' when that is not known yet. The window is read a page at a time from its end, and how
   * far down it was read is kept with the delivery: a 429 (history is scarce) or another copy
   * taking over goes on from there, and the delivery stays unsettled, never posted, until then.
   */
  private async settle(
    delivery: Delivery,
    subscription: Subscription,
    part: number,
  ): Promise<string | null | 'stop'> {
    const { slack, store, logger, clock } = this.options;
    const from = delivery.attemptAt ?? delivery.dueAt;
    // A row marked before the window was recorded: no attempt outlives its lease.
    const until = delivery.attemptUntil ?? new Date(from.getTime() + this.leaseMs);
    const freeAt = this.historyFreeAt.get(delivery.teamId) ?? 0;
    if (freeAt > clock().getTime()) {
      // This workspace's history was refused a moment ago: wait as long as Slack said.
      await store.releaseDelivery(delivery.id, this.owner, new Date(freeAt), true);
      return 'stop';
    }
    let latest = delivery.settleLatest;
    for (let page = 0; page < SETTLE_PAGES_PER_TURN; page++) {
      let read: HistoryPage;
      try {
        read = await readWindowPage(slack, {
          teamId: delivery.teamId,
          channel: delivery.channelId,
          deliveryId: delivery.id,
          part,
          window: { from, until },
          latest,
        });
      } catch (error) {
        const kind = classifySlackError(error);
        if (kind.kind === 'missing-scope') {
          // Without the history scopes nothing can be settled: posting again is the lesser harm.
          logger.warn(
            { deliveryId: delivery.id },
            'cannot read channel history to settle a post; posting it again',
          );
          return null;
        }
        if (kind.kind === 'rate-limited')
          this.historyFreeAt.set(
            delivery.teamId,
            clock().getTime() + Math.max(1, kind.retryAfterSeconds) * 1000,
          );
        return this.afterSlackError(error, delivery, subscription, 'history');
      }
      if (read.kind === 'found') return read.ts;
      if (read.kind === 'absent') return null;
      latest = read.latest;
      if (!(await store.recordSettleProgress(delivery.id, this.owner, latest))) return 'stop';
    }
    // A window busier than the pages of one turn: the rest is read on the next.
    await store.releaseDelivery(delivery.id, this.owner, new Date(clock().getTime() + this.paceMs), true);
    return 'stop';
  }

  /** What a failed Slack call means for the delivery; always 'stop' (the delivery is given back, paused or failed). */
  private async afterSlackError(
    error: unknown,
    delivery: Delivery,
    subscription: Subscription,
    call: 'post' | 'history',
  ): Promise<'stop'> {
    const { store, clock, logger } = this.options;
    const now = clock().getTime();
    const kind = classifySlackError(error);
    switch (kind.kind) {
      case 'rate-limited': {
        // Slack refused it: nothing was posted. Wait as long as Slack says, on this clock.
        const until = now + Math.max(1, kind.retryAfterSeconds) * 1000;
        this.paceUntil.set(delivery.channelId, until);
        await store.releaseDelivery(delivery.id, this.owner, new Date(until), call === 'history');
        logger.info(
          { deliveryId: delivery.id, retryAfter: kind.retryAfterSeconds, call },
          'rate limited by Slack',
        );
        return 'stop';
      }
      case 'channel-gone': {
        await store.finishDelivery(delivery.id, this.owner, { state: 'failed', outcome: kind.reason });
        await this.pauseChannel(subscription, kind.reason);
        return 'stop';
      }
      case 'unknown-outcome': {
        // Slack may have stored the message: the channel's history says so before any repost.
        logger.warn(
          { err: error, deliveryId: delivery.id, call },
          'Slack did not answer; settling from history later',
        );
        await store.releaseDelivery(delivery.id, this.owner, new Date(now + this.settleAfterMs), true);
        return 'stop';
      }
      default: {
        logger.error({ err: error, deliveryId: delivery.id, call }, 'Slack refused a scheduled post');
        await store.finishDelivery(delivery.id, this.owner, {
          state: 'failed',
          outcome: kind.kind === 'refused' ? kind.code : kind.kind,
        });
        return 'stop';
      }
    }
  }

  /** Pauses every subscription of the channel and tells each subscriber once, by direct message. */
  private async pauseChannel(subscription: Subscription, reason: string): Promise<void> {
    const { store, slack, logger } = this.options;
    const paused = await store.pauseChannel(subscription.teamId, subscription.channelId, reason);
    const byPerson = new Map<string, Subscription[]>();
    for (const each of paused) byPerson.set(each.createdBy, [...(byPerson.get(each.createdBy) ?? []), each]);
    for (const [userId, theirs] of byPerson) {
      const message = pausedNotice(
        theirs.map((each) => subscriptionSummary(each)),
        subscription.channelId,
        text(reason),
      );
      await slack.chat
        .postMessage({
          teamId: subscription.teamId,
          channel: userId,
          text: message.text,
          blocks: message.blocks,
        })
        .catch((error: unknown) =>
          logger.warn(
            { err: error, userId },
            'could not tell a subscriber that their subscription is paused',
          ),
        );
    }
  }
}

/** Whose key a subscription's posts are read with, for sharing reads and for saying so. */
function readerOf(subscription: Subscription, source: KeySource): { key: string; name: Mrkdwn } {
  return source === 'personal'
    ? { key: `person:${subscription.createdBy}`, name: mrkdwn`${mention(subscription.createdBy)}’s own key` }
    : { key: 'workspace', name: mrkdwn`this workspace’s key` };
}
