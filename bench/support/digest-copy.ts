/**
 * One copy of the bot for bench:digests, in a process of its own as production runs its copies:
 * the real app (composeBot) on the shared store, its scheduler on its real timer. BENCH_BOT_CONFIG
 * holds the app's settings as JSON (DATABASE_URL, SLACK_API_URL, …; no .env file is read);
 * BENCH_POLL_MS the scheduler's poll. Prints
 * `{"ready":true}` once composed; on `start` (stdin) starts the app; on `report` prints what this
 * process did since the start (CPU time, event-loop busy time); on `stop` stops and exits.
 * BENCH_PROFILE=FILE writes a CPU profile of this process from start to report (DevTools format).
 * bench/digests.ts imports it only for its path (COPY_SCRIPT): it runs as a process's main module.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pino from 'pino';
import { BotConfig } from '../../src/app/config.ts';
import { openBotStore } from '../../src/app/storage/open-bot-store.ts';
import { composeBot } from '../../src/cli/compose-bot.ts';

/** This file, for bench/digests.ts to start a copy with. */
export const COPY_SCRIPT = fileURLToPath(import.meta.url);

function post(session: Session, method: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

async function runCopy(): Promise<void> {
  const config = BotConfig.parse(JSON.parse(process.env.BENCH_BOT_CONFIG ?? '{}'));
  const store = openBotStore(config.DATABASE_URL);
  const bot = composeBot({
    config,
    store,
    logger: pino({ level: 'silent' }),
    // 250 ms is the poll asked of bot-app.ts (fanout's notes).
    scheduler: { pollMs: Number(process.env.BENCH_POLL_MS ?? 250) },
  });

  console.log(JSON.stringify({ ready: true }));
  let cpuBefore = process.cpuUsage();
  let eluBefore = performance.eventLoopUtilization();
  const profiler = process.env.BENCH_PROFILE ? new Session() : null;
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'start') {
      if (profiler) {
        profiler.connect();
        await post(profiler, 'Profiler.enable');
        await post(profiler, 'Profiler.start');
      }
      await bot.start();
      // Started as a copy long running is: its job queue too (pg-boss's first start on a new
      // database takes a second of SQL, which no burst at 09:00 waits for). Counted from here.
      await bot.scheduler.startQueue();
      cpuBefore = process.cpuUsage();
      eluBefore = performance.eventLoopUtilization();
      console.log(JSON.stringify({ started: true }));
    }
    if (line === 'report') {
      const cpu = process.cpuUsage(cpuBefore);
      const elu = performance.eventLoopUtilization(eluBefore);
      if (profiler && process.env.BENCH_PROFILE) {
        const { profile } = (await post(profiler, 'Profiler.stop')) as { profile: unknown };
        writeFileSync(process.env.BENCH_PROFILE, JSON.stringify(profile));
        profiler.disconnect();
      }
      console.log(JSON.stringify({ cpuMs: (cpu.user + cpu.system) / 1000, eventLoopBusyMs: elu.active }));
    }
    if (line === 'stop') break;
  }
  await bot.stop();
  await store.close();
  process.exit(0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runCopy();
