/** How often a subscription posts; weekly is on Mondays (a bid team plans its week on Monday). */
export type Cadence = 'hourly' | 'daily' | 'weekly';
export type SubscriptionKind = 'pipeline' | 'search' | 'deadlines';

/** A channel's subscription to scheduled posts (src/app/features/subscriptions/ and src/app/delivery/). */
export interface Subscription {
  /** Short and readable (`s-7k2m9q`): people type it in `/tender unsubscribe`. */
  id: string;
  teamId: string;
  channelId: string;
  kind: SubscriptionKind;
  /** What it follows, as JSON (a pipeline id, a search, a number of days). */
  target: string;
  cadence: Cadence;
  /** `HH:MM` in `timeZone` (hourly ones post on the hour). */
  localTime: string;
  /** The subscriber's IANA time zone, from users.info when they subscribed. */
  timeZone: string;
  createdBy: string;
  createdAt: Date;
  /** Why it no longer posts (the channel was archived, the app removed), or null. */
  pausedReason: string | null;
  nextRunAt: Date;
  /** JSON of what the last post covered (a search's window end, a pipeline's stages); null before the first. */
  cursor: string | null;
  /** Periods skipped while the app was not running that no post has mentioned yet. */
  skippedCount: number;
}

/** A channel's subscription as subscribing the channel again sees it. */
export interface ChannelSubscription {
  subscription: Subscription;
  /** Whether its creator has linked a key of their own: its posts are read with that key, not the workspace's. */
  creatorHasOwnKey: boolean;
}

/**
 * What subscribing a channel does, decided from what the channel already has: store a new
 * subscription; change one of the channel's (by id: its target and schedule, `nextRunAt` with them;
 * its creator, cursor and pause stay); or keep what it has (nothing is written).
 */
export type ChannelSubscribing = { create: Subscription } | { change: Subscription } | { keep: Subscription };

/** What subscribeChannel did: the decision, and for a change the subscription as it was. */
export type ChannelSubscribed =
  | { create: Subscription }
  | { change: Subscription; before: Subscription }
  | { keep: Subscription };

/** Channel subscriptions; every method is one atomic step (see DeliveryStore for their posts). */
export interface SubscriptionStore {
  /** Stores a new subscription; false when its id is taken (the caller picks another). */
  createSubscription(subscription: Subscription): Promise<boolean>;
  /**
   * Subscribes a channel in one transaction: `decide` is given the channel's subscriptions (oldest
   * first) and what it returns is written before any other subscribe of that channel reads them, so
   * two subscribes at once never both store one. Null when nothing was written because the new id
   * is taken or the one to change is gone: the caller decides again (with another id).
   */
  subscribeChannel(
    teamId: string,
    channelId: string,
    decide: (existing: readonly ChannelSubscription[]) => ChannelSubscribing,
  ): Promise<ChannelSubscribed | null>;
  getSubscription(teamId: string, id: string): Promise<Subscription | null>;
  /** The channel's subscriptions, oldest first. */
  channelSubscriptions(teamId: string, channelId: string): Promise<Subscription[]>;
  /** Removes it with its deliveries still to come; true when it existed. */
  removeSubscription(teamId: string, id: string): Promise<boolean>;
  /**
   * Pauses every running subscription of a channel (archived, or the app removed) and fails its
   * deliveries still to come; resolves with those it paused now (none when already paused), so
   * only one copy of the app tells each subscriber.
   */
  pauseChannel(teamId: string, channelId: string, reason: string): Promise<Subscription[]>;
  /** Runs a paused subscription again from `nextRunAt`; true when it was paused. */
  resumeSubscription(teamId: string, id: string, nextRunAt: Date): Promise<boolean>;
  /** Running subscriptions whose next run is due, earliest first. */
  dueSubscriptions(now: Date, limit: number): Promise<Subscription[]>;
}
