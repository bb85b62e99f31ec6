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

/** Channel subscriptions; every method is one atomic step (see DeliveryStore for their posts). */
export interface SubscriptionStore {
  /** Stores a new subscription; false when its id is taken (the caller picks another). */
  createSubscription(subscription: Subscription): Promise<boolean>;
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
