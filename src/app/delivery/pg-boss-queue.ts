import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { withoutWaitingForFlush } from '../storage/bot-database.ts';
import type { Delivery, DeliveryStore } from '../storage/delivery-store.ts';
import type { ClaimRequest, DeliveryQueue } from './delivery-queue.ts';

/** The two store methods the job queue needs beside the deliveries' own. */
type DeliveryClaims = Pick<DeliveryStore, 'claimChannelsOf' | 'firstOpenDeliveryIds'>;

export interface PgBossQueueOptions {
  connectionString: string;
  store: DeliveryClaims;
  logger: Logger;
  /**
   * How long a copy may hold a job without finishing it before pg-boss hands it to another copy
   * (a copy that died); at least the deliveries' lease, which fences the post itself.
   */
  expireInSeconds: number;
  /** How often pg-boss looks for expired jobs (default 60 s; tests shorten it). */
  maintenanceIntervalSeconds?: number;
  /** The PostgreSQL schema pg-boss keeps its tables in. */
  schema?: string;
}

export const CHANNEL_POSTS_QUEUE = 'tenderbot-channel-posts';
/** One offer of a delivery stands this long before this copy offers it again (it may have been lost). */
const OFFER_AGAIN_MS = 10_000;
/**
 * Open deliveries offered per pass at most: each channel has at most one claimable at a time, and
 * only that one is offered (a channel's later posts would take turns and be completed unclaimed),
 * so this bounds the channels kept at Slack's pace (about one post a second each).
 */
const OFFER_BATCH = 4096;
/**
 * New jobs after which this copy refreshes the planner's statistics of pg-boss's job table. A burst
 * (10,000 posts due at 09:00) fills it far faster than autovacuum looks (a minute), and on the
 * stale statistics completing 300 jobs took 220 ms (a nested loop over every active job) against
 * 13 ms after ANALYZE (bench:digests, two copies on PostgreSQL).
 */
const ANALYZE_AFTER_JOBS = 2000;

/**
 * Channel posts handed out through pg-boss on PostgreSQL: a job per channel whose first open
 * delivery is claimable (that delivery's id as the job's singleton key, so the copies offering it
 * at once make one job), fetched with SKIP LOCKED by whichever copy has a free slot, and expired by
 * pg-boss when the copy holding it stops.
 *
 * A job is its channel's turn, not the post itself: the channel's first deliveries (a run, on the
 * timer) are then claimed in the store (each one's lease fences every write about its post, so a
 * job fetched twice, or a late copy, never posts twice). A job whose delivery is not claimable now
 * (its channel busy, paced or waiting Retry-After) is completed at once; the delivery is offered
 * again when it is claimable, as every open delivery due by the scheduler's clock is offered each
 * pass. So no job waits on PostgreSQL's clock: the scheduler's own clock (a test's, or the real
 * one) decides what is due.
 */
export class PgBossQueue implements DeliveryQueue {
  readonly kind = 'pg-boss';
  private boss: PgBoss | null = null;
  /** Jobs this copy fetched and claimed, by delivery id. */
  private readonly held = new Map<string, string>();
  /** When this copy last offered each delivery (real time). */
  private readonly offered = new Map<string, number>();
  /**
   * Jobs of deliveries this copy is done with, completed together with the next fetch's (one
   * statement for many rather than one a post; a job left active a moment longer changes nothing:
   * the delivery's own row says whether it is finished, and it can be offered again meanwhile).
   */
  private doneJobs: string[] = [];
  /** Jobs this copy offered since it last refreshed the job table's statistics. */
  private jobsSinceAnalyze = 0;

  constructor(private readonly options: PgBossQueueOptions) {}

  async start(): Promise<void> {
    const { options } = this;
    const boss = new PgBoss(channelPostsBossOptions(options));
    boss.on('error', (error: unknown) => options.logger.error({ err: error }, 'pg-boss failed'));
    await boss.start();
    await createQueueOnce(boss, {
      name: CHANNEL_POSTS_QUEUE,
      // 'short': one queued job per singleton key, so offers from several copies make one job.
      policy: 'short',
      expireInSeconds: Math.max(1, Math.ceil(options.expireInSeconds)),
      // An expired job (its copy died) is tried again by another copy, for as long as it takes.
      retryLimit: 1_000_000,
      retryDelay: 0,
      retentionMinutes: 60,
    });
    // pg-boss's schema and the queue's table were committed without waiting for the log's flush
    // (as its jobs are): one synchronous commit makes them durable before the first job is offered.
    await boss
      .getDb()
      .executeSql('BEGIN; SET LOCAL synchronous_commit = on; SELECT txid_current(); COMMIT;', []);
    this.boss = boss;
  }

  async stop(): Promise<void> {
    const boss = this.boss;
    this.boss = null;
    if (!boss) return;
    // Deliveries still held were given back by the scheduler; their jobs are done with.
    const jobs = [...this.doneJobs, ...this.held.values()];
    this.doneJobs = [];
    this.held.clear();
    if (jobs.length > 0) await boss.complete(CHANNEL_POSTS_QUEUE, jobs);
    await boss.stop({ graceful: true, wait: true, close: true, timeout: 5000 });
  }

  private started(): PgBoss {
    if (!this.boss) throw new Error('the channel posts queue is not started');
    return this.boss;
  }

  async offer(dueBy: Date): Promise<void> {
    const boss = this.started();
    const ids = await this.options.store.firstOpenDeliveryIds(dueBy, OFFER_BATCH);
    const now = Date.now();
    for (const [id, at] of this.offered) if (now - at > OFFER_AGAIN_MS) this.offered.delete(id);
    const fresh = ids.filter((id) => !this.offered.has(id) && !this.held.has(id));
    if (fresh.length === 0) return;
    await boss.insert(
      fresh.map((deliveryId) => ({
        name: CHANNEL_POSTS_QUEUE,
        data: { deliveryId },
        singletonKey: deliveryId,
      })),
    );
    for (const id of fresh) this.offered.set(id, now);
    this.jobsSinceAnalyze += fresh.length;
    if (this.jobsSinceAnalyze >= ANALYZE_AFTER_JOBS) {
      this.jobsSinceAnalyze = 0;
      // In the background: ANALYZE samples the table (tens of ms at 20,000 jobs) and blocks no
      // reader or writer, but would wait behind a vacuum; SKIP_LOCKED passes it by instead.
      const table = `${pg.escapeIdentifier(this.options.schema ?? 'pgboss')}.job`;
      boss
        .getDb()
        .executeSql(`ANALYZE (SKIP_LOCKED) ${table}`, [])
        .catch((error: unknown) =>
          this.options.logger.warn({ err: error }, 'could not refresh the job table’s statistics'),
        );
    }
  }

  async claim(request: ClaimRequest): Promise<Delivery[]> {
    const boss = this.started();
    const finishedJobs = this.doneJobs;
    this.doneJobs = [];
    if (request.limit <= 0) {
      if (finishedJobs.length > 0) await boss.complete(CHANNEL_POSTS_QUEUE, finishedJobs);
      return [];
    }
    // A job is its channel's turn: the channel's first (usually the job's own delivery) and the
    // run after it are claimed, for the whole fetch in one statement.
    const jobs = await boss.fetch<{ deliveryId: string }>(CHANNEL_POSTS_QUEUE, { batchSize: request.limit });
    const claimed = await this.options.store.claimChannelsOf(
      jobs.map((job) => job.data.deliveryId),
      request.owner,
      request.now,
      request.leaseMs,
      request.aheadMs,
      request.perChannel,
    );
    const claimedIds = new Set(claimed.map((delivery) => delivery.id));
    for (const job of jobs) {
      const deliveryId = job.data.deliveryId;
      this.offered.delete(deliveryId);
      if (claimedIds.has(deliveryId)) this.held.set(deliveryId, job.id);
      // Posted already, or not claimable yet: offered again once it is. (A delivery claimed
      // without its job, later in a run, has none held: its copy is done with it by its row.)
      else finishedJobs.push(job.id);
    }
    if (finishedJobs.length > 0) await boss.complete(CHANNEL_POSTS_QUEUE, finishedJobs);
    return claimed;
  }

  async done(deliveryId: string): Promise<void> {
    const jobId = this.held.get(deliveryId);
    this.held.delete(deliveryId);
    this.offered.delete(deliveryId);
    if (jobId) this.doneJobs.push(jobId);
  }
}

/** pg-boss's settings for the channel posts' queue. */
export function channelPostsBossOptions(
  options: Pick<PgBossQueueOptions, 'connectionString' | 'maintenanceIntervalSeconds' | 'schema'>,
): PgBoss.ConstructorOptions {
  return {
    // A job is a turn to try, not the record of a post, and one a crash of the database loses is
    // offered again: its commits need not wait for the log's flush (the attempt mark's does; see
    // BotDatabase.recoverableDb).
    connectionString: withoutWaitingForFlush(options.connectionString),
    schema: options.schema ?? 'pgboss',
    // A few connections: fetch, complete and insert are single statements.
    max: 4,
    // Subscriptions keep their own schedules in their zones (src/app/features/subscriptions/schedule.ts);
    // pg-boss's cron is not used, so its cron clock is off.
    schedule: false,
    supervise: true,
    maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 60,
    application_name: 'tenderbot-scheduler',
  };
}

/**
 * Creates the queue unless it exists. Copies starting together may both try: PostgreSQL then
 * reports a deadlock or a duplicate to one of them, which looks again and finds the queue made.
 */
async function createQueueOnce(boss: PgBoss, queue: PgBoss.Queue & { name: string }): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    if (await boss.getQueue(queue.name)) return;
    try {
      await boss.createQueue(queue.name, queue);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      const raced = code === '40P01' || code === '23505' || code === '42P07';
      if (!raced || attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
    }
  }
}
