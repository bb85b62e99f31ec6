/**
 * npm run bench:digests — 1,000 subscriptions over 200 channels, all due at once, posted by the real
 * app's scheduler on its own timer to the fake Slack enforcing one post per second per channel (429
 * with Retry-After beyond it), each summary a fresh read of one of 50 bids from the local service.
 * Slack and the service run in a process of their own (bench/support/digest-peers.ts), as they are
 * remote in real life. Prints the time from due to the last post recorded against the limit's
 * minimum, posts lost and duplicates (counted by the fake Slack); the last line is JSON.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import pino from 'pino';
import { createBotApp } from '../src/app/bot-app.ts';
import { BotConfig } from '../src/app/config.ts';
import { openBotStore } from '../src/app/storage/bot-store.ts';
import { BENCH_KEY } from './support/serve-sandbox.ts';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);
const CHANNELS = Number(process.env.BENCH_CHANNELS ?? 200);
const PIPELINES = 50;
const TIMEOUT_MS = 45_000;

const peers = spawn(
  process.execPath,
  ['--import', 'tsx', 'bench/support/digest-peers.ts', String(CHANNELS), String(PIPELINES)],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
);
const lines = createInterface({ input: peers.stdout })[Symbol.asyncIterator]();
const nextLine = async (): Promise<Record<string, unknown>> =>
  JSON.parse((await lines.next()).value as string);
const { serviceUrl, slackApiUrl, botToken, signingSecret } = (await nextLine()) as Record<string, string>;

const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bench-digests-'));
const config = BotConfig.parse({
  SLACK_BOT_TOKEN: botToken,
  SLACK_SIGNING_SECRET: signingSecret,
  SLACK_API_URL: slackApiUrl,
  PROCUREMENT_API_URL: serviceUrl,
  PROCUREMENT_API_KEY: BENCH_KEY,
  DATABASE_URL: `sqlite:${join(dir, 'bot.db')}`,
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'silent',
  PORT: 0,
});
const store = openBotStore(config.DATABASE_URL);
const channelId = (index: number) => `C${String(index % CHANNELS).padStart(5, '0')}`;

// Every subscription due at the same instant, a little after the app has started.
const dueAt = new Date(Date.now() + 1500);
for (let index = 0; index < SUBSCRIPTIONS; index++) {
  await store.createSubscription({
    id: `s-${String(index).padStart(6, '0')}`,
    teamId: 'T0TENDER',
    channelId: channelId(index),
    kind: 'pipeline',
    target: JSON.stringify({ p: `pl-bench-${index % PIPELINES}` }),
    cadence: 'daily',
    localTime: '09:00',
    timeZone: 'Europe/London',
    createdBy: 'U0ADMIN',
    createdAt: new Date(),
    pausedReason: null,
    nextRunAt: dueAt,
    cursor: null,
    skippedCount: 0,
  });
}

const bot = createBotApp({ config, store, logger: pino({ level: 'silent' }) });
await bot.start();
const watcher = new Database(join(dir, 'bot.db'), { readonly: true });
const sent = () =>
  (watcher.prepare(`SELECT count(*) AS n FROM deliveries WHERE state = 'sent'`).get() as { n: number }).n;
while (sent() < SUBSCRIPTIONS && Date.now() - dueAt.getTime() < TIMEOUT_MS) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const totalSeconds = (Date.now() - dueAt.getTime()) / 1000;
// A moment more, so that a late duplicate would be counted.
await new Promise((resolve) => setTimeout(resolve, 1500));
peers.stdin.write('report\n');
const report = (await nextLine()) as { subscriptions: number; duplicates: number; rateLimited: number };
const perChannel = Math.ceil(SUBSCRIPTIONS / CHANNELS);
// The first post in a channel can go at once, then one a second.
const minimumSeconds = perChannel - 1;
const result = {
  subscriptions: SUBSCRIPTIONS,
  channels: CHANNELS,
  postsPerChannel: perChannel,
  totalSeconds: Number(totalSeconds.toFixed(2)),
  minimumSeconds,
  overMinimumPercent:
    minimumSeconds > 0 ? Number((((totalSeconds - minimumSeconds) / minimumSeconds) * 100).toFixed(1)) : null,
  lost: SUBSCRIPTIONS - report.subscriptions,
  duplicates: report.duplicates,
  rateLimited: report.rateLimited,
};
console.log(
  `${SUBSCRIPTIONS} subscriptions over ${CHANNELS} channels (${perChannel} posts a channel at one a second): ` +
    `${result.totalSeconds} s from due to the last post recorded; the limit allows ${minimumSeconds} s at best ` +
    `(${result.overMinimumPercent}% over). Lost ${result.lost}, duplicates ${result.duplicates}, ` +
    `429s from Slack ${result.rateLimited}.`,
);
await bot.stop();
await store.close();
watcher.close();
peers.stdin.write('stop\n');
await new Promise((resolve) => peers.once('exit', resolve));
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(result));
