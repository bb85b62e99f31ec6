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
}

/** autocannon on loopback at CONNECTIONS: a warm-up, then the measured run. */
export async function measureLoad(url: string, requests: autocannon.Request[]): Promise<Figures> {
  const options = { url, connections: CONNECTIONS, requests };
  await autocannon({ ...options, duration: WARMUP_S });
  const result = await autocannon({ ...options, duration: DURATION_S });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}
