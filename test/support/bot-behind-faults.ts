import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type RunningBot, startBot } from './bot.ts';
import { type FaultServer, startFaultServer } from './fault-server.ts';

/** What botBehindFaults starts: read inside tests (set before they run). */
export interface BotBehindFaults {
  /** The test file's own folder, removed after its tests. */
  readonly dir: string;
  readonly bot: RunningBot;
  readonly faults: FaultServer;
}

/**
 * A bot (`tenderbot bot`, a process of its own) whose service is a fault server that answers as a
 * test plays it, for one test file: started before its tests, stopped after.
 */
export function botBehindFaults(prefix: string): BotBehindFaults {
  const running = { dir: mkdtempSync(join(tmpdir(), prefix)) } as {
    dir: string;
    bot: RunningBot;
    faults: FaultServer;
  };
  beforeAll(async () => {
    running.faults = await startFaultServer();
    running.bot = await startBot({
      serviceUrl: running.faults.baseUrl,
      defaultKey: 'pis_failure_test_0123456789abcdefghijklmnopqr',
      databasePath: join(running.dir, 'bot.db'),
    });
  });
  afterAll(async () => {
    await running.bot?.stop();
    await running.faults?.stop();
    rmSync(running.dir, { recursive: true, force: true });
  });
  return running;
}
