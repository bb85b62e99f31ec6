import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Servers are real processes on loopback; two cores, so keep parallelism modest (three at a
    // time made the worker and restart tests miss their waits, and was no faster: 792 s vs 846 s).
    maxWorkers: 2,
    // A test file's own module graph (src loaded again through the TypeScript transform) cost a
    // second or two per file under load, most of the time of the hundred-odd small files: the
    // files of a worker share one. No test file leaves process.env changed (the time-zone tests set
    // TZ and put it back) or leaves mocks behind.
    isolate: false,
    // The `tenderbot` command compiled once for the run: the processes the tests start load in about
    // half the CPU (test/support/compiled-tenderbot.ts).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // No `retry` (vitest's default runs a failed test once, never again), in CI or not: a flaky
    // test must be seen and fixed. The one bound in time is the acknowledgement test
    // (test/app/listeners/controls.test.ts).
    projects: [
      { extends: true, test: { name: 'tenderbot', include: ['test/**/*.test.ts'] } },
      {
        // The channel posts' exactly-once tests once more with the copies on PostgreSQL, where
        // pg-boss hands the deliveries out (src/app/delivery/pg-boss-queue.ts).
        extends: true,
        test: {
          name: 'subscriptions on postgres',
          include: ['test/app/delivery/**/*.test.ts'],
          exclude: ['test/app/delivery/pg-boss-queue.test.ts'],
          env: { TENDERBOT_TEST_DATABASE: 'postgres' },
          // Their harness reads that variable as it loads: each file loads its own.
          isolate: true,
        },
      },
    ],
  },
});
