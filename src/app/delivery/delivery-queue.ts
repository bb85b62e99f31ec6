import type { Delivery, DeliveryStore } from '../storage/delivery-store.ts';

/** What the scheduler asks for when a slot is free. */
export interface ClaimRequest {
  /** This copy of the app, as lease owner. */
  owner: string;
  now: Date;
  leaseMs: number;
  /** Channels at most, each a run of up to `perChannel` deliveries. */
  limit: number;
  /** Channels this copy is posting to or pacing: none of theirs is claimed. */
  busyChannels: readonly string[];
  /** Deliveries due this much ahead of `now` are claimed too (they wait for their time). */
  aheadMs: number;
  /** A channel's first this many claimable deliveries are claimed together (a run, posted in order). */
  perChannel: number;
}

/**
 * How planned deliveries reach the copies that post them. The deliveries table stays the record
 * of what was posted (content frozen, each part marked before it is sent, fenced by the lease);
 * the queue only decides which copy works on which delivery, and when.
 *
 * - `LeaseTableQueue` (SQLite, the default): the table's own rows are the queue, claimed with a
 *   lease in one statement.
 * - `PgBossQueue` (PostgreSQL): pg-boss jobs, fetched with SKIP LOCKED by any number of copies,
 *   expired and retried when a copy dies (src/app/delivery/pg-boss-queue.ts).
 */
export interface DeliveryQueue {
  readonly kind: 'lease-table' | 'pg-boss';
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Open deliveries due by `dueBy` (planned, sent now, given back, abandoned) become claimable. */
  offer(dueBy: Date): Promise<void>;
  /** Claims the deliveries of up to `limit` channels; each comes back with this copy's lease on it. */
  claim(request: ClaimRequest): Promise<Delivery[]>;
  /** This copy is done with a delivery it claimed (finished, or given back until later). */
  done(deliveryId: string): Promise<void>;
}

/** The deliveries table as its own queue (the SQLite default; see DeliveryStore.claimDeliveries). */
export class LeaseTableQueue implements DeliveryQueue {
  readonly kind = 'lease-table';

  constructor(private readonly store: Pick<DeliveryStore, 'claimDeliveries'>) {}

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  /** Nothing to do: a planned row is claimable as soon as it is written. */
  async offer(): Promise<void> {}

  claim(request: ClaimRequest): Promise<Delivery[]> {
    return this.store.claimDeliveries(
      request.owner,
      request.now,
      request.leaseMs,
      request.limit,
      request.busyChannels,
      request.aheadMs,
      request.perChannel,
    );
  }

  async done(): Promise<void> {}
}

/** How long a delivery is recorded after it is done: what a channel was sent stays known for a quarter. */
export const KEEP_DELIVERIES_MS = 90 * 86_400_000;
