/**
 * npm run bench:digests — BENCH_SUBSCRIPTIONS channel subscriptions (1,000 by default) over
 * BENCH_CHANNELS channels (200), all due at once, posted by BENCH_COPIES copies of the real app
 * (1 by default; each a process of its own, bench/support/digest-copy.ts, composeBot on the shared
 * store with its scheduler on its own timer, polling every 250 ms) to the fake Slack enforcing one
 * post per second per channel (429 with Retry-After beyond it), each summary a fresh read of one of
 * 50 bids from the local service. Slack and the service run in a process of their own
 * (bench/support/digest-peers.ts), as they are remote in real life.
 *
 * BENCH_DATABASE_URL: the bot's store. By default a new SQLite file; `postgres://HOST:PORT/NAME`
 * makes a new database NAME_<random> on that server for the run (user postgres unless the URL
 * names one) and drops it after, and the copies take their turns through pg-boss as in production.
 * Several copies on one SQLite file share it through the deliveries table's leases, as the app does.
 *
 * What it measures: the interval from the due time to the moment the last post is recorded as
 * sent in the store (Slack has answered it), against Slack's minimum (the same-run baseline): with
 * P posts a channel and the first allowed at the due time, (P − 1) × 1 s. Also each post's lateness
 * against its ideal slot (due + k s for the k-th post of its channel, measured when the post was
 * sent), in all and by its place in its channel (the first posts, the second…: where it grows is
 * the wave that lost the time), the gap between two posts of a channel beyond the one second,
 * what the bot's processes did (CPU time and event-loop busy time, summed over the copies: less
 * sensitive to a loaded machine than wall time) and the CPU of the Slack-and-service process.
 * Posts lost and duplicates are counted by the fake Slack. Then, the copies stopped, a bare poster
 * (bench/support/bare-poster.ts; BENCH_BARE=0 skips it) sends as many posts (one of Tenderbot's,
 * over as many channels of their own) at the same pace from a loop that does nothing else: the
 * same-run floor of what this machine and the fake Slack allow. Prints a table, then one JSON line
 * with the figures, the baselines, the ratios, the load average and each goal met or not. A run
 * ends at BENCH_TIMEOUT_S (30 s a post a channel by default); what was not posted by then counts as
 * lost. BENCH_PROFILE=FILE writes a CPU profile of each copy (FILE, or FILE.copyN with several),
 * BENCH_PEERS_PROFILE_DIR=DIR one of the peers; BENCH_COPY_NODE_ARGS: node's options for the copies
 * (space-separated).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import pg from 'pg';
import { BotConfig } from '../src/app/config.ts';
import {
  type BotDatabase,
  openPostgresBotDatabase,
  openSqliteBotDatabase,
} from '../src/app/storage/bot-database.ts';
import { openBotStore } from '../src/app/storage/open-bot-store.ts';
import { postAtSlacksPace } from './support/bare-poster.ts';
import { COPY_SCRIPT } from './support/digest-copy.ts';
import { BENCH_NODE_FLAGS } from './support/node-flags.ts';
import { BENCH_KEY } from './support/serve-sandbox.ts';

const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 1000);
const CHANNELS = Number(process.env.BENCH_CHANNELS ?? 200);
const COPIES = Number(process.env.BENCH_COPIES ?? 1);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? null;
const PIPELINES = 50;
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 250);

if (!Number.isInteger(COPIES) || COPIES < 1)
  throw new Error('BENCH_COPIES must be a whole number, 1 or more.');
if (DATABASE_URL && !/^(sqlite:|postgres(ql)?:\/\/)/.test(DATABASE_URL))
  throw new Error('BENCH_DATABASE_URL must be sqlite:PATH (a new file) or postgres://HOST:PORT/NAME.');

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

/**
 * CPU time of every PostgreSQL server process on the machine, in ms (the copies' connections among
 * them; other users' too, so it is a ceiling). 0 without PostgreSQL or /proc.
 */
function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) === 'postgres')
        total += processCpuMs(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

function percentile(values: number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] as number);
}

/** A child process speaking one JSON object a line on stdout. */
function lineReader(child: { stdout: Readable }): () => Promise<Record<string, unknown>> {
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return async () => {
    const next = await lines.next();
    if (next.done) throw new Error('a benchmark process ended before it answered');
    return JSON.parse(next.value as string);
  };
}

/** A new database for the run on the PostgreSQL server of `url`, dropped by `drop`. */
async function freshPostgresDatabase(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const server = new URL(url);
  if (!server.username) server.username = 'postgres';
  const base = server.pathname.replace(/^\//, '') || 'tenderbot_bench';
  const name = `${base.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_digests_${randomBytes(4).toString('hex')}`;
  const administer = async (statement: string) => {
    const admin = new URL(server);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await administer(`CREATE DATABASE ${name}`);
  server.pathname = `/${name}`;
  return { url: server.toString(), drop: () => administer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

const peersNodeArgs = process.env.BENCH_PEERS_PROFILE_DIR
  ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PEERS_PROFILE_DIR]
  : [];
const peers = spawn(
  process.execPath,
  [...peersNodeArgs, '--import', 'tsx', 'bench/support/digest-peers.ts', String(CHANNELS), String(PIPELINES)],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const fromPeers = lineReader(peers);
const { serviceUrl, slackApiUrl, botToken, signingSecret } = (await fromPeers()) as {
  serviceUrl: string;
  slackApiUrl: string;
  botToken: string;
  signingSecret: string;
};

// The store: a new SQLite file, or a new PostgreSQL database, for this run alone.
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bench-digests-'));
let databaseUrl = `sqlite:${join(dir, 'bot.db')}`;
let dropDatabase = async () => {};
if (DATABASE_URL?.startsWith('sqlite:')) {
  if (existsSync(DATABASE_URL.slice('sqlite:'.length)))
    throw new Error(
      `${DATABASE_URL} exists: bench:digests needs a new SQLite file (or none: a temporary one).`,
    );
  databaseUrl = DATABASE_URL;
} else if (DATABASE_URL) {
  const fresh = await freshPostgresDatabase(DATABASE_URL);
  databaseUrl = fresh.url;
  dropDatabase = fresh.drop;
}
const onPostgres = databaseUrl.startsWith('postgres');
const config = BotConfig.parse({
  SLACK_BOT_TOKEN: botToken,
  SLACK_SIGNING_SECRET: signingSecret,
  SLACK_API_URL: slackApiUrl,
  PROCUREMENT_API_URL: serviceUrl,
  PROCUREMENT_API_KEY: BENCH_KEY,
  DATABASE_URL: databaseUrl,
  ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  LOG_LEVEL: 'silent',
  PORT: 0,
});
const store = openBotStore(config.DATABASE_URL);
const channelId = (index: number) => `C${String(index % CHANNELS).padStart(5, '0')}`;

// Every subscription first far off (the copies start meanwhile), then all due at one instant.
const farOff = new Date(Date.now() + 86_400_000);
for (let first = 0; first < SUBSCRIPTIONS; first += 100) {
  const batch = Array.from({ length: Math.min(100, SUBSCRIPTIONS - first) }, (_, offset) => first + offset);
  await Promise.all(
    batch.map((index) =>
      store.createSubscription({
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
        nextRunAt: farOff,
        cursor: null,
        skippedCount: 0,
      }),
    ),
  );
}
await store.close();
// The bench's own view of the store (Kysely on either database): the due time, and what was sent.
const watcher: BotDatabase = onPostgres
  ? openPostgresBotDatabase(config.DATABASE_URL)
  : openSqliteBotDatabase(config.DATABASE_URL.slice('sqlite:'.length));
await watcher.ready;

const copies = Array.from({ length: COPIES }, (_, index) => {
  const profile = process.env.BENCH_PROFILE;
  const nodeArgs = process.env.BENCH_COPY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...BENCH_NODE_FLAGS, ...nodeArgs, '--import', 'tsx', COPY_SCRIPT], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: {
      ...process.env,
      BENCH_BOT_CONFIG: JSON.stringify({ ...config, METRICS_COPY: `copy-${index + 1}` }),
      BENCH_POLL_MS: String(POLL_MS),
      BENCH_PROFILE: profile ? (COPIES > 1 ? `${profile}.copy${index + 1}` : profile) : '',
    },
  });
  return { child, next: lineReader(child) };
});
for (const copy of copies) await copy.next();

// The copies start (their job queue too) with every subscription far off, then all fall due at once.
for (const copy of copies) copy.child.stdin.write('start\n');
for (const copy of copies) await copy.next();
const dueAt = new Date(Date.now() + 1500);
await watcher.db.updateTable('subscriptions').set({ next_run_at: dueAt.getTime() }).execute();
const loadBefore = loadAverage();
const peersCpuBefore = processCpuMs(peers.pid);
const postgresCpuBefore = onPostgres ? postgresCpuMs() : 0;

// Long enough that a slow run still ends (so what is lost is told apart from what is late); a
// run that reaches it says so, and what was not posted by then counts as lost.
const timeoutMs =
  Number(process.env.BENCH_TIMEOUT_S ?? 0) * 1000 || 30_000 * Math.ceil(SUBSCRIPTIONS / CHANNELS);
const sent = async () =>
  Number(
    (
      await watcher.db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('state', '=', 'sent')
        .executeTakeFirstOrThrow()
    ).n,
  );
// Counting what was sent reads every delivery (10 ms with 10,000 on SQLite, more on PostgreSQL):
// polled every 20 ms it took half a core from the bot and its peers. So Slack is asked how many
// posts it holds (a number it keeps), and the store only once Slack holds them all.
const slackMessages = async () => {
  peers.stdin.write('count\n');
  return Number((await fromPeers()).messages);
};
while (Date.now() - dueAt.getTime() < timeoutMs) {
  if ((await slackMessages()) >= SUBSCRIPTIONS && (await sent()) >= SUBSCRIPTIONS) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const totalSeconds = (Date.now() - dueAt.getTime()) / 1000;
const timedOut = totalSeconds * 1000 >= timeoutMs;
const peersCpuMs = processCpuMs(peers.pid) - peersCpuBefore;
const databaseCpuMs = onPostgres ? postgresCpuMs() - postgresCpuBefore : null;
const copyReports: { cpuMs: number; eventLoopBusyMs: number }[] = [];
for (const copy of copies) {
  copy.child.stdin.write('report\n');
  copyReports.push((await copy.next()) as { cpuMs: number; eventLoopBusyMs: number });
}
const loadAfter = loadAverage();
// Each post's send time (marked just before chat.postMessage), per channel in order.
const rows = (
  await watcher.db
    .selectFrom('deliveries')
    .select(['channel_id', 'attempt_at'])
    .where('state', '=', 'sent')
    .orderBy('channel_id')
    .orderBy('attempt_at')
    .execute()
).map((row) => ({ channel_id: row.channel_id, attempt_at: Number(row.attempt_at) }));
const lateness: number[] = [];
const gaps: number[] = [];
/** Lateness by a post's place in its channel: where it grows says which wave lost the time. */
const latenessByPlace: number[][] = [];
let place = 0;
for (const [index, row] of rows.entries()) {
  const previous = rows[index - 1];
  place = previous?.channel_id === row.channel_id ? place + 1 : 0;
  const late = row.attempt_at - (dueAt.getTime() + place * 1000);
  lateness.push(late);
  const wave = latenessByPlace[place] ?? [];
  wave.push(late);
  latenessByPlace[place] = wave;
  if (previous && place > 0) gaps.push(row.attempt_at - previous.attempt_at - 1000);
}
const lastSentSeconds =
  rows.length > 0 ? (Math.max(...rows.map((row) => row.attempt_at)) - dueAt.getTime()) / 1000 : null;
// A moment more, so that a late duplicate would be counted.
await new Promise((resolve) => setTimeout(resolve, 1500));
peers.stdin.write('report\n');
const report = (await fromPeers()) as { subscriptions: number; duplicates: number; rateLimited: number };
const perChannel = Math.ceil(SUBSCRIPTIONS / CHANNELS);
// The copies stop before the bare poster posts, so it has the machine as they had it.
for (const copy of copies) copy.child.stdin.write('stop\n');
await Promise.all(copies.map((copy) => new Promise((resolve) => copy.child.once('exit', resolve))));
peers.stdin.write('sample\n');
const sample = (await fromPeers()) as { text: string; blocks: unknown[] };
// Each bare channel takes as many posts as Tenderbot's channel of the same number (channelId).
const bareChannels = Array.from({ length: Math.min(CHANNELS, SUBSCRIPTIONS) }, (_, index) => ({
  id: `B${String(index).padStart(5, '0')}`,
  posts: Math.floor((SUBSCRIPTIONS - 1 - index) / CHANNELS) + 1,
}));
let bare: Awaited<ReturnType<typeof postAtSlacksPace>> | null = null;
if (process.env.BENCH_BARE !== '0') {
  try {
    bare = await postAtSlacksPace({
      apiUrl: slackApiUrl,
      token: botToken,
      channels: bareChannels,
      message: sample,
      paceMs: 1000,
    });
  } catch (error) {
    // Tenderbot's figures stand without it; the peers and the database are still cleaned up.
    console.error('the bare poster failed:', error);
  }
}
// The first post in a channel can go at once, then one a second.
const minimumSeconds = perChannel - 1;
const botCpuMs = copyReports.reduce((sum, copy) => sum + copy.cpuMs, 0);
const ratio = minimumSeconds > 0 ? Number((totalSeconds / minimumSeconds).toFixed(3)) : null;
const lost = SUBSCRIPTIONS - report.subscriptions;
const result = {
  subscriptions: SUBSCRIPTIONS,
  channels: CHANNELS,
  postsPerChannel: perChannel,
  database: onPostgres ? 'postgres' : 'sqlite',
  copies: COPIES,
  queue: onPostgres ? 'pg-boss' : 'lease-table',
  interval: 'due time to the last post recorded as sent',
  timeoutSeconds: timeoutMs / 1000,
  timedOut,
  tenderbot: {
    totalSeconds: Number(totalSeconds.toFixed(2)),
    lastPostSentSeconds: lastSentSeconds,
    lost,
    duplicates: report.duplicates,
    rateLimited: report.rateLimited,
    latenessMs: {
      p50: percentile(lateness, 0.5),
      p99: percentile(lateness, 0.99),
      max: percentile(lateness, 1),
    },
    latenessByPlaceMs: latenessByPlace.map((values, index) => ({
      place: index + 1,
      p50: percentile(values, 0.5),
      max: percentile(values, 1),
    })),
    gapBeyondPaceMs: { p50: percentile(gaps, 0.5), p99: percentile(gaps, 0.99) },
    botCpuMs: Math.round(botCpuMs),
    botCpuMsPerCopy: copyReports.map((copy) => Math.round(copy.cpuMs)),
    botCpuMsPerPost: Number((botCpuMs / SUBSCRIPTIONS).toFixed(3)),
    botEventLoopBusyMs: Math.round(copyReports.reduce((sum, copy) => sum + copy.eventLoopBusyMs, 0)),
    slackAndServiceCpuMs: Math.round(peersCpuMs),
    slackAndServiceCpuMsPerPost: Number((peersCpuMs / SUBSCRIPTIONS).toFixed(3)),
    postgresServerCpuMs: databaseCpuMs,
  },
  baseline: {
    what: "Slack's minimum: (posts a channel − 1) × 1 s at one post a second a channel",
    totalSeconds: minimumSeconds,
    barePoster: bare && {
      what: "the same posts at the same pace from a loop doing nothing else (this machine's floor)",
      totalSeconds: Number(bare.totalSeconds.toFixed(2)),
      posts: bare.posts,
      refused: bare.refused,
      latenessByPlaceMs: bare.latenessByPlaceMs.map((values, index) => ({
        place: index + 1,
        p50: percentile(values, 0.5),
        max: percentile(values, 1),
      })),
    },
  },
  ratioToBarePoster: bare ? Number((totalSeconds / bare.totalSeconds).toFixed(3)) : null,
  ratio,
  overMinimumPercent: ratio === null ? null : Number(((ratio - 1) * 100).toFixed(1)),
  goals: {
    withinTenPercentOfMinimum: ratio !== null && ratio <= 1.1,
    noneLost: lost === 0,
    noneDoubled: report.duplicates === 0,
  },
  pollMs: POLL_MS,
  cores: availableParallelism(),
  loadAverage: { before: loadBefore, after: loadAfter },
};
const { tenderbot } = result;
const met = (goal: boolean) => (goal ? 'met' : 'NOT met');
const byPlace = (waves: readonly { place: number; p50: number | null; max: number | null }[]) =>
  `${waves.map((wave) => `${wave.place}: ${wave.p50} / ${wave.max}`).join(', ')} ms`;
const table: [string, string][] = [
  ['subscriptions / channels / posts a channel', `${SUBSCRIPTIONS} / ${CHANNELS} / ${perChannel}`],
  ['store / bot copies', `${result.database} (${result.queue}) / ${COPIES}`],
  ['due time to last post recorded as sent', `${tenderbot.totalSeconds} s`],
  ["Slack's minimum (baseline)", `${minimumSeconds} s`],
  [
    'ratio to the minimum',
    `${ratio}× (${result.overMinimumPercent}% over; goal within 10%: ${met(result.goals.withinTenPercentOfMinimum)})`,
  ],
  [
    'bare poster (same posts, same pace, nothing else)',
    bare
      ? `${bare.totalSeconds.toFixed(2)} s (${bare.posts} posted, ${bare.refused} refused; ` +
        `Tenderbot ${result.ratioToBarePoster}× it); by place p50 / max: ` +
        byPlace(result.baseline.barePoster?.latenessByPlaceMs ?? [])
      : `not run (${process.env.BENCH_BARE === '0' ? 'BENCH_BARE=0' : 'it failed, above'})`,
  ],
  ['last post sent (attempt mark)', `${lastSentSeconds} s`],
  [
    timedOut ? `lost (not posted within the ${timeoutMs / 1000} s timeout)` : 'lost',
    `${lost} (goal 0: ${met(result.goals.noneLost)})`,
  ],
  ['doubled', `${report.duplicates} (goal 0: ${met(result.goals.noneDoubled)})`],
  ["Slack's 429s", `${report.rateLimited}`],
  [
    'lateness against the slot p50 / p99 / max',
    `${tenderbot.latenessMs.p50} / ${tenderbot.latenessMs.p99} / ${tenderbot.latenessMs.max} ms`,
  ],
  ['lateness by place in the channel, p50 / max', byPlace(tenderbot.latenessByPlaceMs)],
  [
    'gap beyond 1 s between posts p50 / p99',
    `${tenderbot.gapBeyondPaceMs.p50} / ${tenderbot.gapBeyondPaceMs.p99} ms`,
  ],
  [
    'bot CPU (all copies)',
    `${tenderbot.botCpuMs} ms (${tenderbot.botCpuMsPerPost} ms a post; copies ${tenderbot.botCpuMsPerCopy.join(' + ')})`,
  ],
  ['bot event loop busy (all copies)', `${tenderbot.botEventLoopBusyMs} ms`],
  [
    'Slack and service process CPU',
    `${tenderbot.slackAndServiceCpuMs} ms (${tenderbot.slackAndServiceCpuMsPerPost} ms a post)`,
  ],
  [
    'PostgreSQL server CPU (all its processes)',
    databaseCpuMs === null
      ? '-'
      : `${databaseCpuMs} ms (${(databaseCpuMs / SUBSCRIPTIONS).toFixed(3)} ms a post)`,
  ],
  ['cores / load average before, after', `${result.cores} / ${loadBefore}, ${loadAfter}`],
];
const width = Math.max(...table.map(([figure]) => figure.length));
console.log(table.map(([figure, value]) => `${figure.padEnd(width)}  ${value}`).join('\n'));
await watcher.close();
peers.stdin.write('stop\n');
await new Promise((resolve) => peers.once('exit', resolve));
if (process.env.BENCH_KEEP) console.error(`bot database kept: ${databaseUrl}`);
else {
  await dropDatabase();
  rmSync(dir, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
