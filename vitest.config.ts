import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Servers are real processes on loopback; two cores, so keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // In CI a failed test runs once more: the browser and 3 s tests share two cores with real
    // servers and a browser, and a rare stall there must not hide the rest of the run. Locally a
    // failure shows at once. The reporter still lists every retried test.
    retry: process.env.CI ? 1 : 0,
  },
});
