/** The scheduler moved to src/app/delivery/scheduler.ts; this path answers until its callers import that. */
export { KEEP_DELIVERIES_MS, Scheduler, type SchedulerOptions } from '../delivery/scheduler.ts';
