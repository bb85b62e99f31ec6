/**
 * A copy of the real app in a process of its own, for tests that kill it (killed-process.test.ts):
 *
 *   node --import tsx test/app/subscriptions/support/bot-child.ts
 *
 * Its configuration comes from the environment (Harness.childEnvironment: the test's database
 * file, fake Slack and service), its clock from the parent over IPC: `{ now }` sets it (answered
 * `{ clock }`), `{ run: true }` starts one scheduler pass (answered `{ running: true }` at once and
 * `{ ran }` or `{ failed }` when it ends). It prints "ready" once it takes messages. Test-only.
 */
import pino from 'pino';
import { BotConfig } from '../../../../src/app/config.ts';
import type { PassResult } from '../../../../src/app/delivery/scheduler.ts';
import { openBotStore } from '../../../../src/app/storage/open-bot-store.ts';
import { composeBot } from '../../../../src/cli/compose-bot.ts';

export type ToChild = { now: number } | { run: true };
export type FromChild = { clock: number } | { running: true } | { ran: PassResult } | { failed: string };

const send = process.send?.bind(process);
if (!send) throw new Error('bot-child.ts runs as a child process with an IPC channel');
const tell = (message: FromChild) => send(message);

const config = BotConfig.parse(process.env);
const scheduler = JSON.parse(process.env.TENDERBOT_CHILD_SCHEDULER ?? '{}') as {
  pollMs: null;
  owner: string;
  leaseMs: number;
  paceMs: number;
  settleAfterMs: number;
};
// The parent's clock: it moves only when the parent says so.
let now = Number(process.env.TENDERBOT_CHILD_NOW);
const store = openBotStore(config.DATABASE_URL);
const bot = composeBot({
  config,
  store,
  logger: pino({ level: 'silent' }),
  clock: () => new Date(now),
  scheduler,
});
await bot.start();

process.on('message', (message: ToChild) => {
  if ('now' in message) {
    now = message.now;
    tell({ clock: now });
    return;
  }
  tell({ running: true });
  bot.scheduler.runDue().then(
    (ran) => tell({ ran }),
    (error: unknown) => tell({ failed: String(error) }),
  );
});
// The parent leaving ends this copy too (a test that failed never leaves it behind).
process.on('disconnect', () => process.exit(0));
process.stdout.write('ready\n');
