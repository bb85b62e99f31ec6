/*
 * Over 500 lines: one protocol (claim a delivery under a lease, mark the attempt, post, settle
 * from Slack's answer or its history), whose steps share the lease fencing and the marks that keep
 * a post from going out twice; split, each half would need the other's private state.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ScheduledSlack } from '../adapters/scheduled-slack.ts';
import { classifySlackError } from '../adapters/slack-errors.ts';
import type { WorkspaceClient, WorkspaceClients } from '../adapters/workspace-clients.ts';
import { bidReferencesIn } from '../features/bids/index.ts';
import { type Built, buildDelivery, type Frozen, readerOf } from '../features/subscriptions/content.ts';
import { catchUp } from '../features/subscriptions/schedule.ts';
import type { BotMetrics } from '../metrics/bot-metrics.ts';
import type { Message } from '../shared/views/messages.ts';
import type { BidReferenceStore } from '../storage/bid-reference-store.ts';
import type { Delivery, DeliveryFinish, DeliveryStore } from '../storage/delivery-store.ts';
import type { StoreLifecycle } from '../storage/store-lifecycle.ts';
import type { Subscription, SubscriptionStore } from '../storage/subscription-store.ts';
import type { DeliveryQueue } from './delivery-queue.ts';
import { pauseChannel } from './pause-channel.ts';
import { DELIVERY_EVENT_TYPE, type HistoryPage, readWindowPage } from './settle-from-history.ts';

/** The store's methods exactly-once posting uses: the deliveries', and its subscriptions' reads and pause. */
export type PostingStore = DeliveryStore &
  Pick<SubscriptionStore, 'dueSubscriptions' | 'getSubscription' | 'pauseChannel'> &
  Partial<Pick<BidReferenceStore, 'bidReferenceNumbers'>> &
  Partial<Pick<StoreLifecycle, 'checkpointInBackground'>>;

/** How a delivery waits for a near slot (on the scheduler's timer) rather than being given back. */
interface SlotWait {
  /** A slot at most this far off is waited for. */
  nearMs: number;
  /** True when the wait ran its time, false when the scheduler stopped meanwhile. */
  sleep(ms: number): Promise<boolean>;
  stopped(): boolean;
}

export interface PostingOptions {
  store: PostingStore;
  /** Slack for scheduled posts (a 429 comes back at once; see SchedulerOptions.slack). */
  slack: ScheduledSlack;
  clients: WorkspaceClients;
  logger: Logger;
  clock: () => Date;
  /** Which copy works on which delivery (delivery-queue.ts); started and stopped by the scheduler. */
  queue: DeliveryQueue;
  /** This copy of the app, as lease owner. */
  owner: string;
  leaseMs: number;
  /** Time between two posts in one channel. */
  paceMs: number;
  /** How long after an unknown outcome the channel's history is read. */
  settleAfterMs: number;
  /** How long a post may take before its answer counts as lost (its ts is in that window). */
  postTimeoutMs: number;
  feedReadLimit: number;
  /** On a timer: how a delivery waits for a near slot; null: it is given back until then. */
  waitNear: SlotWait | null;
  /** Counts what is planned, posted, settled and finished (GET /metrics). */
  metrics?: BotMetrics;
}

/** What posting one claimed delivery did. */
export interface PostOutcome {
  posted: number;
  finished: boolean;
}

/**
 * Pages of an attempt's window read in one turn: a window is seconds long, so one page nearly
 * always; where history is limited to a call a minute, the next page waits for Slack's Retry-After.
 */
const SETTLE_PAGES_PER_TURN = 10;

/**
 * Exactly-once posting of channel posts: a subscription's due post is planned as a delivery (once,
 * whichever copy plans it), claimed with a lease through the queue, its content frozen before
 * anything is sent, each part marked as being sent before the call to Slack and recorded with its
 * ts after, a part whose answer was lost settled from the channel's history before it is ever sent
 * again, and the delivery finished with its subscription's cursor in one step. Every write is
 * fenced by the lease (DeliveryStore), so several copies on one store never post a thing twice.
 * The scheduler (scheduler.ts) decides when this runs and how many at once.
 */
export class ExactlyOncePosting {
  /** Tenders one feed post reads at most (tests lower it through the scheduler). */
  feedReadLimit: number;
  /** When each channel may next be posted to by this copy. */
  private readonly paceUntil = new Map<string, number>();
  /** When each workspace's history may be read again (after Slack's 429 for it), clock ms. */
  private readonly historyFreeAt = new Map<string, number>();
  /** Reads of a bid shared by the posts of one pass or burst (see forgetSharedReads). */
  private sharedReads = new Map<string, Promise<unknown>>();
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly paceMs: number;
  private readonly settleAfterMs: number;
  private readonly postTimeoutMs: number;

  constructor(private readonly options: PostingOptions) {
    this.owner = options.owner;
    this.leaseMs = options.leaseMs;
    this.paceMs = options.paceMs;
    this.settleAfterMs = options.settleAfterMs;
    this.postTimeoutMs = options.postTimeoutMs;
    this.feedReadLimit = options.feedReadLimit;
  }

  /** Starts a new round of shared reads (each pass, or every few seconds of a burst on the timer). */
  forgetSharedReads(): void {
    this.sharedReads = new Map();
  }

  /**
   * Whose key the subscriber's posts are read with, found once a pass or burst like the reads it
   * makes (kept among them; a key linked or removed meanwhile counts from the next, at most a few
   * seconds on the timer). A failure is not kept: the next post asks again.
   */
  private readerFor(teamId: string, userId: string): Promise<WorkspaceClient> {
    const reads = this.sharedReads;
    const key = `reader\u0000${teamId}\u0000${userId}`;
    let reader = reads.get(key) as Promise<WorkspaceClient> | undefined;
    if (!reader) {
      reader = this.options.clients.forPerson(teamId, userId);
      reads.set(key, reader);
      reader.catch(() => {
        if (reads.get(key) === reader) reads.delete(key);
      });
    }
    return reader;
  }

  /** The earliest moment a paced channel may post again after `now`, or null. */
  nextPaceEnd(now: Date): Date | null {
    const paced = [...this.paceUntil.values()].filter((until) => until > now.getTime());
    return paced.length > 0 ? new Date(Math.min(...paced)) : null;
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
      const plannedNow = await store.planDeliveries(plans);
      this.options.metrics?.deliveriesPlanned(plannedNow);
      planned += plannedNow;
      // None planned: another copy is planning these (PostgreSQL skips the rows it holds) and
      // reading them again would find the same ones; what it leaves is read at the next pass.
      if (plannedNow === 0) break;
    }
    // Planned now or earlier, given back, sent now, abandoned by a stopped copy: all offered.
    await this.options.queue.offer(now);
    return planned;
  }

  /**
   * Claims the deliveries of up to `limit` channels through the queue, leaving out the `working`
   * channels and those paced beyond `now + prefetchMs` (a channel whose next slot is that near is
   * not left out: its next post is built meanwhile). `aheadMs`: pending deliveries due that much
   * ahead are claimed too; `perChannel`: a channel's first that many together, in its order.
   */
  claim(
    now: Date,
    limit: number,
    working: Iterable<string>,
    aheadMs: number,
    prefetchMs: number,
    perChannel: number,
  ): Promise<Delivery[]> {
    const busy = [...working];
    for (const [channel, until] of this.paceUntil) {
      if (until > now.getTime() + prefetchMs) busy.push(channel);
      else if (until <= now.getTime()) this.paceUntil.delete(channel);
    }
    return this.options.queue.claim({
      owner: this.owner,
      now,
      leaseMs: this.leaseMs,
      limit,
      busyChannels: busy,
      aheadMs,
      perChannel,
    });
  }

  /**
   * Gives claimed deliveries of one channel back unstarted until it may be posted to again (a pace
   * from now, or longer where Slack asked: what this copy knows of the channel, for any copy to
   * see), keeping any attempt mark, and tells the queue this copy is done with them.
   */
  async giveBack(deliveries: readonly Delivery[]): Promise<void> {
    const [first] = deliveries;
    if (!first) return;
    const { store, clock, logger, queue } = this.options;
    const until = Math.max(clock().getTime() + this.paceMs, this.paceUntil.get(first.channelId) ?? 0);
    const ids = deliveries.map((delivery) => delivery.id);
    await store
      .giveBack(ids, this.owner, new Date(until))
      .catch((error: unknown) =>
        logger.warn({ err: error, deliveryIds: ids }, 'could not give deliveries back'),
      );
    for (const id of ids) await queue.done(id).catch(() => undefined);
  }

  /**
   * Posts a claimed delivery (deliver()); one that fails unexpectedly is given back for a minute,
   * its part still marked (so it is settled first). Then the queue is told this copy is done with it.
   */
  async post(delivery: Delivery): Promise<PostOutcome> {
    const { store, clock, logger, queue } = this.options;
    let outcome: PostOutcome = { posted: 0, finished: false };
    try {
      outcome = await this.deliver(delivery);
    } catch (error) {
      logger.error({ err: error, deliveryId: delivery.id }, 'delivery failed unexpectedly');
      await store
        .releaseDelivery(delivery.id, this.owner, new Date(clock().getTime() + 60_000), true)
        .catch(() => undefined);
    }
    await queue
      .done(delivery.id)
      .catch((error: unknown) =>
        logger.warn({ err: error, deliveryId: delivery.id }, 'could not tell the queue a delivery is done'),
      );
    return outcome;
  }

  /**
   * Posts one claimed delivery exactly once:
   * 1. its content is built and frozen (with the items it posts reserved) before anything is sent;
   * 2. each part is marked as being sent in the store, then posted with its delivery id and part
   *    number in the message metadata, then recorded with Slack's ts (only while the lease is ours);
   * 3. a part whose outcome is unknown (a crash, a timeout, an answer lost) is looked for in the
   *    channel's history of its attempt's window before it is ever posted again (settle()).
   */
  private async deliver(delivery: Delivery): Promise<PostOutcome> {
    const { store, logger } = this.options;
    const subscription = await store.getSubscription(delivery.teamId, delivery.subscriptionId);
    if (!subscription || subscription.pausedReason) {
      await this.finish(delivery.id, {
        state: 'failed',
        outcome: subscription ? `paused: ${subscription.pausedReason}` : 'unsubscribed',
      });
      return { posted: 0, finished: true };
    }
    let frozen: Frozen;
    /** Content built now that reserves nothing: frozen with its first part's attempt mark, one write. */
    let freezeWithAttempt: string | undefined;
    if (delivery.frozen) frozen = JSON.parse(delivery.frozen) as Frozen;
    else {
      const built = await this.freeze(delivery, subscription);
      if (built === 'retry') return { posted: 0, finished: false };
      if (built.kind === 'empty') {
        await this.finish(delivery.id, {
          state: 'empty',
          outcome: null,
          ...(built.cursor ? { cursor: { json: built.cursor.json, at: new Date(built.cursor.at) } } : {}),
        });
        return { posted: 0, finished: true };
      }
      frozen = built.frozen;
      freezeWithAttempt = built.freezeWithAttempt;
    }

    const posted = [...delivery.postedTs];
    if (delivery.attemptingPart !== null && delivery.attemptingPart === posted.length) {
      const settled = await this.settle(delivery, subscription, delivery.attemptingPart);
      if (settled === 'stop') return { posted: 0, finished: false };
      this.options.metrics?.settledFromHistory(settled === null ? 'absent' : 'found');
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
      const outcome = await this.postPart(
        delivery,
        subscription,
        frozen.parts[part] as Message,
        part,
        freezeWithAttempt,
      );
      freezeWithAttempt = undefined;
      if (outcome === 'stop') return { posted: postedNow, finished: false };
      const last = part === frozen.parts.length - 1;
      // The last part is recorded and the delivery finished in one step.
      const paceUntil = this.paceUntil.get(delivery.channelId);
      const recorded = last
        ? await this.finish(delivery.id, {
            ...finish,
            lastPart: { part, ts: outcome },
            ...(paceUntil ? { paceUntil: new Date(paceUntil) } : {}),
          })
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
    const finishedNow = await this.finish(delivery.id, finish);
    return { posted: postedNow, finished: finishedNow };
  }

  /** Finishes a delivery this copy holds, and counts how it ended when it did. */
  private async finish(id: string, finish: DeliveryFinish): Promise<boolean> {
    const finished = await this.options.store.finishDelivery(id, this.owner, finish);
    if (finished) this.options.metrics?.deliveryFinished(finish.state);
    return finished;
  }

  /**
   * Builds and freezes the content; 'retry' when the service failed (tried again later, never lost).
   * Content that reserves no items (a summary) is not written here but with the first part's attempt
   * mark (`freezeWithAttempt`): one write a post; given back before that, it is built again.
   */
  private async freeze(
    delivery: Delivery,
    subscription: Subscription,
  ): Promise<(Built & { freezeWithAttempt?: string }) | 'retry'> {
    const { store, clock, logger } = this.options;
    const numbers = store.bidReferenceNumbers?.bind(store);
    const exclude = new Set<string>();
    for (let attempt = 0; attempt < 4; attempt++) {
      let built: Built;
      try {
        // Read as its subscriber reads: their own key where they linked one (their bookmarks, the
        // bids they can see), else the workspace's.
        const { client, source } = await this.readerFor(subscription.teamId, subscription.createdBy);
        built = await buildDelivery({
          client,
          reader: readerOf(subscription, source),
          subscription,
          delivery,
          now: clock(),
          exclude,
          shared: this.sharedReads,
          delivered: (keys) => store.deliveredItems(subscription.id, keys),
          feedReadLimit: this.feedReadLimit,
          // Bids named as their cards name them (BID-7), where the store gives references.
          bidReferences: numbers && bidReferencesIn({ bidReferenceNumbers: numbers }, subscription.teamId),
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
      if (built.frozen.itemKeys.length === 0)
        return { ...built, freezeWithAttempt: JSON.stringify(built.frozen) };
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
    /** The delivery's content, frozen in the same write as this mark (see freeze). */
    frozen?: string,
  ): Promise<string | 'stop'> {
    const { store, clock, slack } = this.options;
    const now = clock();
    // The window its ts will be in, recorded before it is sent: what settling reads if the answer is lost.
    const attemptUntil = new Date(now.getTime() + this.postTimeoutMs);
    if (!(await store.markAttempt(delivery.id, this.owner, part, now, this.leaseMs, attemptUntil, frozen)))
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
      this.options.metrics?.channelPosted((clock().getTime() - delivery.dueAt.getTime()) / 1000);
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
        // The channel's other posts wait as long, whichever copy takes them (a post's 429 is the
        // channel's; history's is the workspace's, kept by historyFreeAt). Written while this one
        // still holds the channel, so no claim comes between the two and takes them early.
        if (call === 'post')
          await store
            .paceChannel(delivery.teamId, delivery.channelId, new Date(until), this.owner)
            .catch((failure: unknown) =>
              logger.warn(
                { err: failure, deliveryId: delivery.id },
                'could not hold the channel for Retry-After',
              ),
            );
        await store.releaseDelivery(delivery.id, this.owner, new Date(until), call === 'history');
        logger.info(
          { deliveryId: delivery.id, retryAfter: kind.retryAfterSeconds, call },
          'rate limited by Slack',
        );
        return 'stop';
      }
      case 'channel-gone': {
        await this.finish(delivery.id, { state: 'failed', outcome: kind.reason });
        await pauseChannel(this.options, subscription, kind.reason);
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
        await this.finish(delivery.id, {
          state: 'failed',
          outcome: kind.kind === 'refused' ? kind.code : kind.kind,
        });
        return 'stop';
      }
    }
  }

  /**
   * Waits for the delivery's due time and its channel's next slot when they are near (on the
   * timer), else gives the delivery back until then (content frozen before is kept; a summary's, not
   * frozen until its first attempt, is built again); false when given back.
   */
  private async waitForSlot(delivery: Delivery, keepAttempt: boolean): Promise<boolean> {
    const { store, clock } = this.options;
    // A few waits at most: a clock that does not move (a stopped test clock) never reaches the slot.
    for (let waits = 0; ; waits++) {
      const now = clock().getTime();
      // Its own time (due, or given back until then: Retry-After, another copy's pace) and this copy's pace.
      const slot = Math.max(
        delivery.dueAt.getTime(),
        delivery.notBefore.getTime(),
        this.paceUntil.get(delivery.channelId) ?? 0,
      );
      if (slot <= now) return true;
      const { waitNear } = this.options;
      if (waitNear && !waitNear.stopped() && slot - now <= waitNear.nearMs && waits < 3) {
        if (await waitNear.sleep(slot - now)) continue;
      }
      await store.releaseDelivery(delivery.id, this.owner, new Date(slot), keepAttempt);
      return false;
    }
  }
}
