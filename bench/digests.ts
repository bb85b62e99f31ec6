/**
 * npm run bench:digests — 1,000 subscriptions over 200 channels, all due at once, posted by the real
 * app's scheduler on its own timer (polling every 250 ms) to the fake Slack enforcing one post per
 * second per channel (429 with Retry-After beyond it), each summary a fresh read of one of 50 bids
 * from the local service. Slack and the service run in a process of their own
 * (bench/support/digest-peers.ts), as they are remote in real life.
 *
 * What it measures: the interval from the due time to the moment the last post is recorded as
 * sent in the bot's database (Slack has answered it), against the limit's minimum: with 5 posts a
 * channel and the first allowed at the due time, (5 − 1) × 1 s. Also each post's lateness against
 * its ideal slot (due + k s for the k-th post of its channel, measured when the post was sent), the
 * gap between two posts of a channel beyond the one second, and what the bot process itself did
 * (CPU time and event-loop busy time: less sensitive to a loaded machine than wall time). The load
 * average is printed with the figures. Posts lost and duplicates are counted by the fake Slack.
 * The last line is JSON.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import pino from 'pino';
import { BotConfig } from '../src/app/config.ts';
import { openBotStore } from '../src/app/storage/open-bot-store.ts';
import { composeBot } from '../src/cli/compose-bot.ts';
import { BENCH_KEY } from './support/serve-sandbox.ts';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);
const CHANNELS = Number(process.env.BENCH_CHANNELS ?? 200);
const PIPELINES = 50;
const TIMEOUT_MS = 45_000;
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 250);

/** The 1-minute load average (others' work on the machine shows in the figures). */
function loadAverage(): number | null {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/** CPU time (user + system) a process has used, in ms (Linux /proc; 0 elsewhere). */
function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

function post(session: Session, method: string): Promise<unknown> {
  return new Promise((resolve, reject) =>
    session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
  );
}

function percentile(values: number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number);
}

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

// The app's scheduler on its real timer; 250 ms is the poll asked of bot-app.ts (fanout's notes).
const bot = composeBot({
  config,
  store,
  logger: pino({ level: 'silent' }),
  scheduler: { pollMs: POLL_MS },
});
const loadBefore = loadAverage();
const cpuBefore = process.cpuUsage();
const peersCpuBefore = processCpuMs(peers.pid);
const eluBefore = performance.eventLoopUtilization();
// BENCH_PROFILE=FILE writes a CPU profile of the bot process for the run alone (DevTools format).
const profiler = process.env.BENCH_PROFILE ? new Session() : null;
if (profiler) {
  profiler.connect();
  await post(profiler, 'Profiler.enable');
  await post(profiler, 'Profiler.start');
}
await bot.start();
const watcher = new Database(join(dir, 'bot.db'), { readonly: true });
const sent = () =>
  (watcher.prepare(`SELECT count(*) AS n FROM deliveries WHERE state = 'sent'`).get() as { n: number }).n;
while (sent() < SUBSCRIPTIONS && Date.now() - dueAt.getTime() < TIMEOUT_MS) {
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const totalSeconds = (Date.now() - dueAt.getTime()) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const peersCpuMs = processCpuMs(peers.pid) - peersCpuBefore;
if (profiler && process.env.BENCH_PROFILE) {
  const { profile } = (await post(profiler, 'Profiler.stop')) as { profile: unknown };
  writeFileSync(process.env.BENCH_PROFILE, JSON.stringify(profile));
  profiler.disconnect();
}
const elu = performance.eventLoopUtilization(eluBefore);
const loadAfter = loadAverage();
// Each post's send time (marked just before chat.postMessage), per channel in order.
const rows = watcher
  .prepare(
    `SELECT channel_id, attempt_at FROM deliveries WHERE state = 'sent' ORDER BY channel_id, attempt_at`,
  )
  .all() as { channel_id: string; attempt_at: number }[];
const lateness: number[] = [];
const gaps: number[] = [];
let place = 0;
for (const [index, row] of rows.entries()) {
  const previous = rows[index - 1];
  place = previous?.channel_id === row.channel_id ? place + 1 : 0;
  lateness.push(row.attempt_at - (dueAt.getTime() + place * 1000));
  if (previous && place > 0) gaps.push(row.attempt_at - previous.attempt_at - 1000);
}
const lastSentSeconds =
  rows.length > 0 ? (Math.max(...rows.map((row) => row.attempt_at)) - dueAt.getTime()) / 1000 : null;
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
  interval: 'due time to the last post recorded as sent',
  lastPostSentSeconds: lastSentSeconds,
  latenessMs: {
    p50: percentile(lateness, 0.5),
    p99: percentile(lateness, 0.99),
    max: percentile(lateness, 1),
  },
  gapBeyondPaceMs: { p50: percentile(gaps, 0.5), p99: percentile(gaps, 0.99) },
  botCpuMs: Math.round((cpu.user + cpu.system) / 1000),
  botCpuMsPerPost: Number(((cpu.user + cpu.system) / 1000 / SUBSCRIPTIONS).toFixed(2)),
  botEventLoopBusyMs: Math.round(elu.active),
  slackAndServiceCpuMs: Math.round(peersCpuMs),
  pollMs: POLL_MS,
  slackFetch: 'undici request (as the app)',
  loadAverage: { before: loadBefore, after: loadAfter },
};
console.log(
  `${SUBSCRIPTIONS} subscriptions over ${CHANNELS} channels (${perChannel} posts a channel at one a second): ` +
    `${result.totalSeconds} s from the due time to the last post recorded as sent; the limit allows ${minimumSeconds} s at best ` +
    `(${result.overMinimumPercent}% over). Lost ${result.lost}, duplicates ${result.duplicates}, ` +
    `429s from Slack ${result.rateLimited}.\n` +
    `Posts late against their slot (due + k s): p50 ${result.latenessMs.p50} ms, p99 ${result.latenessMs.p99} ms; ` +
    `gap between two posts of a channel beyond 1 s: p50 ${result.gapBeyondPaceMs.p50} ms, p99 ${result.gapBeyondPaceMs.p99} ms.\n` +
    `Bot process: ${result.botCpuMs} ms CPU (${result.botCpuMsPerPost} ms a post), event loop busy ${result.botEventLoopBusyMs} ms; Slack and service process ${result.slackAndServiceCpuMs} ms CPU. ` +
    `Load average ${loadBefore} before, ${loadAfter} after.`,
);
await bot.stop();
await store.close();
watcher.close();
peers.stdin.write('stop\n');
await new Promise((resolve) => peers.once('exit', resolve));
if (process.env.BENCH_KEEP) console.error(`bot database kept in ${dir}`);
else rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(result));
