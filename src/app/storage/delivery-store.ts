export type DeliveryState = 'pending' | 'working' | 'sent' | 'empty' | 'failed';

/**
 * One post of a subscription for one period (or one "Send now"). Claimed with a lease by one copy
 * of the app at a time; its content is frozen before the first part is sent, so whoever finishes
 * it posts the same thing, and each part is marked as being sent before the call to Slack.
 */
export interface Delivery {
  id: string;
  subscriptionId: string;
  teamId: string;
  channelId: string;
  dueAt: Date;
  /** Made by "Send now" rather than by the schedule. */
  manual: boolean;
  state: DeliveryState;
  leaseOwner: string | null;
  leaseUntil: Date | null;
  /** Not to be claimed before this (a retry after a failure, Slack's Retry-After, the channel's pace). */
  notBefore: Date;
  attempts: number;
  /** JSON of the frozen content (parts, items, cursor after), or null before it is built. */
  frozen: string | null;
  /** The ts of each part Slack has accepted, in order. */
  postedTs: string[];
  /** The part being sent when the outcome became unknown (settled from history before any retry). */
  attemptingPart: number | null;
  /** When that part was sent, and when it could last have reached Slack: the window its ts is in. */
  attemptAt: Date | null;
  attemptUntil: Date | null;
  /**
   * Settling that part: the window's history was read from its end down to this message ts (the
   * next read's `latest`), null before the first read. Kept across Retry-After waits and copies.
   */
  settleLatest: string | null;
  outcome: string | null;
}

/** One subscription's next delivery, as planDelivery takes it. */
export interface PlannedDelivery {
  subscriptionId: string;
  expectedNextRunAt: Date;
  nextRunAt: Date;
  skipped: number;
  delivery: { id: string; dueAt: Date };
}

/** What finishing a delivery also records on its subscription. */
export interface DeliveryFinish {
  state: 'sent' | 'empty' | 'failed';
  outcome: string | null;
  /** The subscription's new cursor (what this post covered) and its instant; an older one never replaces a newer. */
  cursor?: { json: string; at: Date };
  /** Skipped periods this post mentioned (taken off the subscription's count). */
  skippedSaid?: number;
  /** The ts of its last part, recorded in the same step (as recordPart would: only in its place). */
  lastPart?: { part: number; ts: string };
  /**
   * When its channel may next be posted to (Slack's pace, from the answer to this post): the
   * channel's pending deliveries wait for it, whichever copy of the app claims them.
   */
  paceUntil?: Date;
}

/**
 * Deliveries (the posts of subscriptions) and the items they posted: the store behind exactly-once
 * posting (src/app/delivery/exactly-once-posting.ts). Every method is one atomic step, so several
 * copies of the app on one database never plan, claim or record the same thing twice.
 */
export interface DeliveryStore {
  /**
   * Moves a subscription's next run from `expectedNextRunAt` to `nextRunAt`, adds `skipped` to its
   * count, and plans `delivery` (one per subscription and due time), all or nothing; false when
   * another copy moved it first.
   */
  planDelivery(
    subscriptionId: string,
    expectedNextRunAt: Date,
    nextRunAt: Date,
    skipped: number,
    delivery: { id: string; dueAt: Date },
  ): Promise<boolean>;
  /** planDelivery for many subscriptions in one transaction (each moved and planned or not as alone); how many were planned. */
  planDeliveries(plans: readonly PlannedDelivery[]): Promise<number>;
  /** A delivery outside the schedule ("Send now"), due at once. */
  addManualDelivery(delivery: { id: string; subscriptionId: string; dueAt: Date }): Promise<boolean>;
  /**
   * Claims the due deliveries (pending and not before `now`, or working with a lease that ended)
   * of up to `limit` channels: in each its first `perChannel` in order (1 by default; a copy on its
   * timer takes a run it posts one after another at the pace), never a later one without those
   * before it, and none in a channel where another is under way or half posted (a half-posted one
   * goes alone), leaving out `busyChannels`: one statement. Channels take turns by when their
   * first delivery could post. The deliveries are leased to `owner` until `now + leaseMs` and come
   * in their channels' order. `aheadMs` also claims pending ones due that much later (the caller
   * waits for their time); a lease is only ever taken over once it has ended at `now`.
   */
  claimDeliveries(
    owner: string,
    now: Date,
    leaseMs: number,
    limit: number,
    busyChannels: readonly string[],
    aheadMs?: number,
    perChannel?: number,
  ): Promise<Delivery[]>;
  /**
   * claimDeliveries over the channels of the deliveries `ids` (the job queue's turns, each job
   * naming its channel's first open delivery), all in one statement. Deliveries finished, gone or
   * not claimable now are left as they are.
   */
  claimChannelsOf(
    ids: readonly string[],
    owner: string,
    now: Date,
    leaseMs: number,
    aheadMs: number,
    perChannel?: number,
  ): Promise<Delivery[]>;
  /** Ids of deliveries that could be claimed by `dueBy` (pending and due, or working with a lease ended), oldest first. */
  openDeliveryIds(dueBy: Date, limit: number): Promise<string[]>;
  /**
   * As openDeliveryIds, only each channel's first as claims rank them (a half-sent one, claimable
   * or not, else the first claimable by due time then id), where nothing else there is under way
   * or half sent: the channels' turns a job queue hands out (claimChannelsOf), so that a channel's
   * later posts take no turn before their time, and one waiting (a retry after a failed read)
   * holds no other post of its channel.
   */
  firstOpenDeliveryIds(dueBy: Date, limit: number): Promise<string[]>;
  getDelivery(id: string): Promise<Delivery | null>;
  /** Every delivery of a subscription, by due time (for the list, the tests and the benchmark). */
  subscriptionDeliveries(subscriptionId: string): Promise<Delivery[]>;
  /**
   * Freezes a delivery's content and reserves its items (once per subscription). If any of
   * `itemKeys` is already taken by another delivery nothing is written and those keys come back;
   * `lost` when the lease is no longer `owner`'s, or its content was frozen already (by a run that
   * held it while this one's lease had ended: content is frozen once).
   */
  freezeDelivery(
    id: string,
    owner: string,
    frozen: string,
    itemKeys: readonly string[],
    /** A line kept with each item, by index (a feed's listing), for deliveryListing. */
    listings?: readonly (string | null)[],
  ): Promise<{ ok: true } | { ok: false; taken: string[]; lost: boolean }>;
  /**
   * Marks part `part` as being sent (before the call to Slack), with the window its ts will be in
   * (from `now` to `attemptUntil`, by default the lease's end), and renews the lease; false when lost.
   * With `frozen`, the delivery's content is frozen in the same write (content that reserves no
   * items, not frozen before: one write for its first attempt instead of freezeDelivery's and this);
   * false, nothing written, when its content was frozen already.
   */
  markAttempt(
    id: string,
    owner: string,
    part: number,
    now: Date,
    leaseMs: number,
    attemptUntil?: Date,
    frozen?: string,
  ): Promise<boolean>;
  /** Records how far down its window the history of the part being sent was read; false when the lease is lost. */
  recordSettleProgress(id: string, owner: string, latest: string): Promise<boolean>;
  /** Records the ts Slack gave part `part`; false when the lease is no longer `owner`'s. */
  recordPart(id: string, owner: string, part: number, ts: string): Promise<boolean>;
  /**
   * Gives a delivery back until `notBefore` (Slack's Retry-After, a retry after a failure, the
   * channel's pace); `keepAttempt` leaves the part marked as being sent, so that whoever takes it
   * next looks in the channel's history first.
   */
  releaseDelivery(id: string, owner: string, notBefore: Date, keepAttempt: boolean): Promise<boolean>;
  /**
   * Gives deliveries `owner` claimed and did not start back until `notBefore` (the rest of a run,
   * another of a channel it is posting to), keeping any attempt mark, as if this claim had not
   * been made: it counts as no attempt. How many were still `owner`'s.
   */
  giveBack(ids: readonly string[], owner: string, notBefore: Date): Promise<number>;
  /**
   * The channel's pending deliveries, and those `owner` holds there with a lease ending before
   * `until`, wait until `until` (Slack's Retry-After for the channel), whichever copy of the app
   * claims them; a later time already set is kept. (A lease lasting past `until` holds the row
   * longer already: none may take it before, and every release overwrites its time.)
   */
  paceChannel(teamId: string, channelId: string, until: Date, owner: string): Promise<void>;
  /** Finishes a delivery (and moves its subscription's cursor); false when the lease is no longer `owner`'s. */
  finishDelivery(id: string, owner: string, finish: DeliveryFinish): Promise<boolean>;
  /**
   * Deletes finished deliveries (sent, empty, failed) due before `before`, with the items they
   * posted, one statement per table, all or nothing. A sent or empty one goes only once a later
   * one of its subscription has finished (its window was moved past, so none of its items can
   * come back); the last post of a long-paused subscription is kept.
   */
  pruneDeliveries(before: Date): Promise<{ deliveries: number; items: number }>;
  /** The items a subscription has already posted (or reserved), of those given. */
  deliveredItems(subscriptionId: string, itemKeys: readonly string[]): Promise<Set<string>>;
  /**
   * One page of a feed delivery's listing (the tenders behind "and N more"), in the order they
   * were frozen, with the total; null when that delivery is not known (or pruned).
   */
  deliveryListing(
    deliveryId: string,
    offset: number,
    limit: number,
  ): Promise<{ total: number; items: string[] } | null>;
}
