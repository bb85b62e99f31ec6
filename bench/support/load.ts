import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/** Connections, measured seconds and warm-up of every load in the benchmarks (env overrides). */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP_S = 3;

/** What one load measured. */
export interface Figures {
  requestsPerSecond: number;
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

/**
 * autocannon on loopback at CONNECTIONS: a warm-up, then the measured run. With `serverPid`, the
 * server's CPU time per request is read from /proc around the measured run.
 */
export async function measureLoad(
  url: string,
  requests: autocannon.Request[],
  serverPid?: number,
): Promise<Figures> {
  const options = { url, connections: CONNECTIONS, requests };
  const warmUp = await autocannon({ ...options, duration: WARMUP_S });
  const cpuBefore = serverPid === undefined ? null : cpuMicros(serverPid);
  const result = await autocannon({ ...options, duration: DURATION_S });
  const cpuAfter = serverPid === undefined ? null : cpuMicros(serverPid);
  const figures: Figures = {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    ok: warmUp['2xx'] + result['2xx'],
  };
  if (cpuBefore !== null && cpuAfter !== null && result.requests.total > 0) {
    figures.cpuMicrosPerRequest = Math.round((cpuAfter - cpuBefore) / result.requests.total);
  }
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
