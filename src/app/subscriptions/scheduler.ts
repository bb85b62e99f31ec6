import { randomUUID } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Message } from '../blocks/messages.ts';
import type { WorkspaceClients } from '../services/workspace-clients.ts';
import type { BotStore, Delivery, Subscription } from '../storage/bot-store.ts';
import { type Built, buildDelivery, type Frozen } from './content.ts';
import { pausedNotice, subscriptionSummary } from './describe.ts';
import { catchUp } from './schedule.ts';
import { DELIVERY_EVENT_TYPE, findPostedPart } from './settle.ts';
import { classifySlackError } from './slack-errors.ts';

export interface SchedulerOptions {
  store: BotStore;
  /**
   * Slack for scheduled posts: `rejectRateLimitedCalls` and no retries, so a 429 comes back at once
   * and only that delivery waits (on this scheduler's clock) while other channels go on.
   */
  slack: WebClient;
  clients: WorkspaceClients;
  logger: Logger;
  clock: () => Date;
  /** This copy of the app, as lease owner (random by default). */
  owner?: string;
  /** How long a claimed delivery is this copy's (default 60 s: longer than any one call may take). */
  leaseMs?: number;
  /** Time between two posts in one channel (Slack allows about one a second). */
  paceMs?: number;
  /** Deliveries worked on at once. */
  concurrency?: number;
  /** How long after an unknown outcome the channel's history is read (Slack may still be storing it). */
  settleAfterMs?: number;
  /** Without a timer (tests and benchmarks call runDue themselves); with one, how often it looks when idle. */
  pollMs?: number | null;
}

/** What one pass did, and when the next is worth running. */
export interface PassResult {
  posted: number;
  finished: number;
  /** The earliest moment a paced channel may post again, or null. */
  nextWakeAt: Date | null;
}

/**
 * The scheduler in the app process: plans each subscription's due deliveries, claims them with a
 * lease, and posts each exactly once (see deliver()). Several copies on one store share the work.
 */
export class Scheduler {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly paceMs: number;
  private readonly concurrency: number;
  private readonly settleAfterMs: number;
  /** When each channel may next be posted to by this copy. */
  private readonly paceUntil = new Map<string, number>();
  private readonly working = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private wakeRequested = false;
  private shared = new Map<string, Promise<unknown>>();

  constructor(private readonly options: SchedulerOptions) {
    this.owner = options.owner ?? `app-${randomUUID().slice(0, 8)}`;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.paceMs = options.paceMs ?? 1000;
    this.concurrency = options.concurrency ?? 32;
    this.settleAfterMs = options.settleAfterMs ?? 30_000;
  }

  /** Starts the timer (when pollMs is set). */
  start(): void {
    this.stopped = false;
    if (this.options.pollMs != null) this.schedule(0);
  }

  /** Stops the timer and waits for the pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Something is due now ("Send now"): run a pass soon rather than at the next poll. */
  wake(): void {
    if (this.stopped || this.options.pollMs == null) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runDue()
        .then((result) => {
          const poll = this.options.pollMs ?? 1000;
          const now = this.options.clock().getTime();
          const wakeIn = result.nextWakeAt ? Math.max(0, result.nextWakeAt.getTime() - now) : poll;
          this.running = null;
          this.schedule(this.wakeRequested ? 0 : Math.min(poll, wakeIn));
          this.wakeRequested = false;
        })
        .catch((error: unknown) => {
          this.running = null;
          this.options.logger.error({ err: error }, 'scheduler pass failed');
          this.schedule(this.options.pollMs ?? 1000);
        });
    }, delayMs);
    this.timer.unref?.();
  }

  /**
   * One pass at the clock's now: plans what is due, then posts whatever may be posted now, at most
   * one post per channel (the next waits for the channel's pace).
   */
  async runDue(): Promise<PassResult> {
    const { store, clock } = this.options;
    await this.plan(clock());
    // One pass reads each bid once, however many channels follow it (dropped after the pass).
    this.shared = new Map();
    let posted = 0;
    let finished = 0;
    for (;;) {
      const now = clock();
      const busy = [...this.working];
      for (const [channel, until] of this.paceUntil) {
        if (until > now.getTime()) busy.push(channel);
        else this.paceUntil.delete(channel);
      }
      const claimed = await store.claimDeliveries(this.owner, now, this.leaseMs, this.concurrency, busy);
      if (claimed.length === 0) break;
      const outcomes = await Promise.all(
        claimed.map(async (delivery) => {
          this.working.add(delivery.channelId);
          try {
            return await this.deliver(delivery);
          } catch (error) {
            this.options.logger.error(
              { err: error, deliveryId: delivery.id },
              'delivery failed unexpectedly',
            );
            await store
              .releaseDelivery(delivery.id, this.owner, new Date(clock().getTime() + 60_000), true)
              .catch(() => undefined);
            return { posted: 0, finished: false };
          } finally {
            this.working.delete(delivery.channelId);
          }
        }),
      );
      for (const outcome of outcomes) {
        posted += outcome.posted;
        if (outcome.finished) finished++;
      }
    }
    const paced = [...this.paceUntil.values()].filter((until) => until > clock().getTime());
    return {
      posted,
      finished,
      nextWakeAt: paced.length > 0 ? new Date(Math.min(...paced)) : null,
    };
  }

  /** Plans one delivery for each due subscription (after downtime: the latest period, the rest skipped). */
  async plan(now: Date): Promise<number> {
    const { store } = this.options;
    let planned = 0;
    for (let round = 0; round < 100; round++) {
      const due = await store.dueSubscriptions(now, 500);
      if (due.length === 0) break;
      for (const subscription of due) {
        const { dueAt, skipped, nextRunAt } = catchUp(subscription, subscription.nextRunAt, now);
        if (
          await store.planDelivery(subscription.id, subscription.nextRunAt, nextRunAt, skipped, {
            id: randomUUID(),
            dueAt,
          })
        )
          planned++;
      }
    }
    return planned;
  }

  /**
   * Posts one claimed delivery exactly once:
   * 1. its content is built and frozen (with the items it posts reserved) before anything is sent;
   * 2. each part is marked as being sent in the store, then posted with its delivery id and part
   *    number in the message metadata, then recorded with Slack's ts (only while the lease is ours);
   * 3. a part whose outcome is unknown (a crash, a timeout, an answer lost) is looked for in the
   *    channel's recent history before it is ever posted again.
   */
  private async deliver(delivery: Delivery): Promise<{ posted: number; finished: boolean }> {
    const { store, clock, logger } = this.options;
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
    for (let part = posted.length; part < frozen.parts.length; part++) {
      const now = clock();
      if (postedNow > 0) {
        // The next part waits for the channel's pace; the delivery is given back until then.
        await store.releaseDelivery(delivery.id, this.owner, new Date(now.getTime() + this.paceMs), false);
        return { posted: postedNow, finished: false };
      }
      const outcome = await this.postPart(delivery, subscription, frozen.parts[part] as Message, part);
      if (outcome === 'stop') return { posted: postedNow, finished: false };
      if (!(await store.recordPart(delivery.id, this.owner, part, outcome))) {
        // Another copy took the delivery over meanwhile (it settles from history): not ours to record.
        logger.warn({ deliveryId: delivery.id, part }, 'lease lost before the post was recorded');
        return { posted: postedNow + 1, finished: false };
      }
      postedNow++;
    }
    const finishedNow = await store.finishDelivery(delivery.id, this.owner, {
      state: 'sent',
      outcome: null,
      ...(frozen.cursor ? { cursor: { json: frozen.cursor.json, at: new Date(frozen.cursor.at) } } : {}),
      skippedSaid: frozen.skippedSaid,
    });
    return { posted: postedNow, finished: finishedNow };
  }

  /** Builds and freezes the content; 'retry' when the service failed (tried again later, never lost). */
  private async freeze(delivery: Delivery, subscription: Subscription): Promise<Built | 'retry'> {
    const { store, clients, clock, logger } = this.options;
    const exclude = new Set<string>();
    for (let attempt = 0; attempt < 4; attempt++) {
      let built: Built;
      try {
        const { client } = await clients.forTeam(subscription.teamId);
        built = await buildDelivery({
          client,
          subscription,
          delivery,
          now: clock(),
          exclude,
          shared: this.shared,
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
    if (!(await store.markAttempt(delivery.id, this.owner, part, now, this.leaseMs))) return 'stop';
    this.paceUntil.set(delivery.channelId, now.getTime() + this.paceMs);
    try {
      const answer = await slack.chat.postMessage({
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
   * Settles a part whose outcome is unknown: its ts when the channel's recent history holds it,
   * null when it does not (so it is posted), 'stop' when that cannot be known yet.
   */
  private async settle(
    delivery: Delivery,
    subscription: Subscription,
    part: number,
  ): Promise<string | null | 'stop'> {
    const { slack, logger, clock } = this.options;
    const since = delivery.attemptAt ?? delivery.dueAt;
    try {
      return await findPostedPart(slack, {
        channel: delivery.channelId,
        deliveryId: delivery.id,
        part,
        since,
        now: clock(),
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
      const outcome = await this.afterSlackError(error, delivery, subscription, 'history');
      return outcome === 'stop' ? 'stop' : null;
    }
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
        reason,
      );
      await slack.chat
        .postMessage({ channel: userId, text: message.text, blocks: message.blocks })
        .catch((error: unknown) =>
          logger.warn(
            { err: error, userId },
            'could not tell a subscriber that their subscription is paused',
          ),
        );
    }
  }
}
