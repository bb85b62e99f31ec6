import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MeasuredRun, measureRun, pooled, quantile } from '../../../bench/support/load.ts';

/** A measured run as measureRun makes one, from its latencies alone. */
function run(latencies: number[], extra: Partial<MeasuredRun> = {}): MeasuredRun {
  return {
    latencies,
    total: latencies.length,
    seconds: 1,
    cpuMicros: null,
    requestsPerSecond: latencies.length,
    p50: 0,
    p99: 0,
    errors: 0,
    ok: latencies.length,
    ...extra,
  };
}

describe('quantile', () => {
  it('reads the figure below which the share q of the latencies lies, to the hundredth', () => {
    const sorted = Array.from({ length: 100 }, (_, index) => index + 0.123);
    expect(quantile(sorted, 0.5)).toBe(50.12);
    expect(quantile(sorted, 0.99)).toBe(99.12);
    expect(quantile(sorted, 1)).toBe(99.12);
    expect(quantile([], 0.99)).toBe(0);
  });
});

describe('pooled', () => {
  it('pools rounds as one run: requests over their whole time, percentiles over every latency', () => {
    // A fast round and a slow one: each round's p99 alone says nothing of the pair.
    const fast = run(
      Array.from({ length: 900 }, () => 1.5),
      { seconds: 2, cpuMicros: 90_000, errors: 1 },
    );
    const slow = run(
      Array.from({ length: 100 }, () => 9.25),
      { seconds: 3, cpuMicros: 60_000, errors: 2 },
    );
    const both = pooled([fast, slow]);
    expect(both.total).toBe(1000);
    expect(both.requestsPerSecond).toBe(200);
    expect(both.p50).toBe(1.5);
    expect(both.p99).toBe(9.25);
    expect(both.cpuMicrosPerRequest).toBe(150);
    expect(both.errors).toBe(3);
    expect(both.ok).toBe(1000);
  });

  it('has no CPU figure when a round could not read it', () => {
    const both = pooled([run([1], { cpuMicros: 10 }), run([2])]);
    expect(both.cpuMicros).toBeNull();
    expect(both.cpuMicrosPerRequest).toBeUndefined();
  });
});

describe('measureRun', () => {
  let server: Server;
  let url: string;
  let answered = 0;
  beforeAll(async () => {
    // Every fifth request fails: its latency is not one of the 2xx answers'.
    server = createServer((_request, response) => {
      answered++;
      response.writeHead(answered % 5 === 0 ? 500 : 200).end('ok');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((closed) => server.close(closed));
  });

  it('keeps the latency of every 2xx answer to a fraction of a millisecond, and counts the rest as errors', async () => {
    const measured = await measureRun(url, [{ method: 'GET' }], { warmupSeconds: 0, seconds: 1 });
    // A second of loopback answers, however busy the machine: some of each kind.
    expect(measured.total).toBeGreaterThan(5);
    expect(measured.errors).toBeGreaterThan(0);
    expect(measured.latencies.length).toBe(measured.ok);
    expect(measured.latencies.length + measured.errors).toBe(measured.total);
    // autocannon's histogram keeps whole milliseconds; these are the answers' own times.
    expect(measured.latencies.some((latency) => !Number.isInteger(latency))).toBe(true);
    const sorted = [...measured.latencies].sort((a, b) => a - b);
    expect(measured.p99).toBe(quantile(sorted, 0.99));
    expect(measured.p50).toBeLessThanOrEqual(measured.p99);
  });
});
