/** The job queue moved to src/app/delivery/pg-boss-queue.ts; this path answers until its callers import that. */
export { CHANNEL_POSTS_QUEUE, PgBossQueue } from '../delivery/pg-boss-queue.ts';
