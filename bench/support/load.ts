import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';

/** Connections, measured seconds and warm-up of every load in the benchmarks (env overrides). */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP_S = 3;

/** What one load measured. */
export interface Figures {
  requestsPerSecond: number;
  /** Latency of the 2xx answers in ms, to the hundredth (not autocannon's whole milliseconds). */
  p50: number;
  p99: number;
  /** Non-2xx answers, errors and timeouts together. */
  errors: number;
  /**
   * CPU time (user + system) the server's process spent per answered request in the measured run,
   * in microseconds: unlike req/s it hardly moves with the machine's load. Absent when not asked.
   */
  cpuMicrosPerRequest?: number;
  /** 2xx answers over the warm-up and the measured run together (what was acknowledged). */
  ok?: number;
}

/** One measured run, with what pooling it with others needs. */
export interface MeasuredRun extends Figures {
  /** Every 2xx answer's latency in the measured run, ms. */
  latencies: number[];
  /** Answers of the measured run (any status), its length and the server's CPU over it. */
  total: number;
  seconds: number;
  cpuMicros: number | null;
}

export interface LoadOptions {
  serverPid?: number;
  /** Seconds of warm-up before the measured run (WARMUP_S by default). */
  warmupSeconds?: number;
  /** Seconds measured (DURATION_S by default). */
  seconds?: number;
}

/**
 * autocannon on loopback at CONNECTIONS: a warm-up, then the measured run. With `serverPid`, the
 * server's CPU time per request is read from /proc around the measured run.
 */
export async function measureLoad(
  url: string,
  requests: autocannon.Request[],
  serverPid?: number,
): Promise<Figures> {
  return figuresOf(await measureRun(url, requests, { serverPid }));
}

/** A run's figures without its latencies (for printing and JSON). */
export function figuresOf(run: MeasuredRun): Figures {
  const { requestsPerSecond, p50, p99, errors, cpuMicrosPerRequest, ok } = run;
  return {
    requestsPerSecond,
    p50,
    p99,
    errors,
    ...(cpuMicrosPerRequest === undefined ? {} : { cpuMicrosPerRequest }),
    ...(ok === undefined ? {} : { ok }),
  };
}

/**
 * One run as measureLoad makes it, keeping every latency: autocannon's own histogram keeps whole
 * milliseconds, so a p99 of 4 against 5 ms could not tell 1.0× from 1.25×. Latencies are taken
 * from its 'response' events (as its histogram takes them: 2xx only).
 */
export async function measureRun(
  url: string,
  requests: autocannon.Request[],
  options: LoadOptions = {},
): Promise<MeasuredRun> {
  const { serverPid } = options;
  const base = { url, connections: CONNECTIONS, requests };
  const warmupSeconds = options.warmupSeconds ?? WARMUP_S;
  const warmUp = warmupSeconds > 0 ? await autocannon({ ...base, duration: warmupSeconds }) : null;
  const latencies: number[] = [];
  const cpuBefore = serverPid === undefined ? null : cpuMicros(serverPid);
  const seconds = options.seconds ?? DURATION_S;
  // Without a callback autocannon's instance is also the promise of its result (the types say only one).
  const instance = autocannon({ ...base, duration: seconds }) as unknown as autocannon.Instance &
    Promise<autocannon.Result>;
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
  const result = await instance;
  const cpuAfter = serverPid === undefined ? null : cpuMicros(serverPid);
  const cpu = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
  return summarise({
    latencies,
    total: result.requests.total,
    seconds,
    cpuMicros: cpu,
    errors: result.non2xx + result.errors + result.timeouts,
    ok: (warmUp?.['2xx'] ?? 0) + result['2xx'],
  });
}

/**
 * Runs measured one after another as one: requests over their whole time, percentiles over every
 * latency, CPU over every request. Alternating rounds of a target and its baseline, pooled so,
 * compare the two over the same stretch of the machine's weather.
 */
export function pooled(runs: readonly MeasuredRun[]): MeasuredRun {
  const cpus = runs.map((run) => run.cpuMicros);
  return summarise({
    latencies: runs.flatMap((run) => run.latencies),
    total: runs.reduce((sum, run) => sum + run.total, 0),
    seconds: runs.reduce((sum, run) => sum + run.seconds, 0),
    cpuMicros: cpus.every((cpu) => cpu !== null) ? cpus.reduce((sum, cpu) => sum + (cpu ?? 0), 0) : null,
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    ok: runs.reduce((sum, run) => sum + (run.ok ?? 0), 0),
  });
}

/** The figure of q (0–1) of the latencies, in ms to the hundredth; 0 without any. */
export function quantile(sorted: readonly number[], q: number): number {
  const value = sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return Math.round(value * 100) / 100;
}

function summarise(
  run: Omit<MeasuredRun, 'requestsPerSecond' | 'p50' | 'p99' | 'cpuMicrosPerRequest'>,
): MeasuredRun {
  const sorted = [...run.latencies].sort((a, b) => a - b);
  const figures: MeasuredRun = {
    ...run,
    requestsPerSecond: Math.round(run.total / Math.max(run.seconds, 1e-9)),
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
  };
  if (run.cpuMicros !== null && run.total > 0)
    figures.cpuMicrosPerRequest = Math.round(run.cpuMicros / run.total);
  return figures;
}

/** User + system CPU time of a process so far, in microseconds (Linux /proc); null elsewhere. */
export function cpuMicros(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1_000_000) / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

/** sysconf(_SC_CLK_TCK): 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The load average over one minute (Linux), printed beside every wall-clock figure. */
export function loadAverage(): number | null {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/** The machine's busy CPU time so far (every core, user to softirq), and its whole time, in ticks. */
function machineTicks(): { busy: number; all: number } | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      ?.trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    if (!fields || fields.length < 5) return null;
    const all = fields.reduce((sum, value) => sum + value, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: all - idle, all };
  } catch {
    return null;
  }
}

/**
 * Waits until the machine is quiet: less than QUIET_SHARE of one core busy over a QUIET_MS window
 * (at most QUIET_AT_MOST_MS; Linux only). A run that follows another's aftermath (a checkpoint, a
 * collection, answers still arriving) measures that aftermath as much as itself.
 */
export async function quiet(): Promise<void> {
  const cores = availableParallelism();
  const until = performance.now() + QUIET_AT_MOST_MS;
  let last = machineTicks();
  while (last && performance.now() < until) {
    await new Promise((done) => setTimeout(done, QUIET_MS));
    const now = machineTicks();
    if (!now) return;
    const busyCores = ((now.busy - last.busy) / Math.max(1, now.all - last.all)) * cores;
    last = now;
    if (busyCores < QUIET_SHARE) return;
  }
}
const QUIET_MS = 300;
const QUIET_SHARE = 0.15;
const QUIET_AT_MOST_MS = 15_000;
