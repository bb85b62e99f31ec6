/**
 * npm run bench:client — what the typed client costs over a bare undici request.
 *
 * Starts `tenderbot sandbox serve` as its own process, then reads tender details over loopback
 * from 10 callers at once (BENCH_CONNECTIONS), alternating rounds of the client
 * (`client.tenders.get`) and of a bare undici `request` with `body.json()` on the same kind of
 * keep-alive agent, so that drift in the machine hits both alike. Each pair of rounds gives a mean
 * and a p99 ratio; the figures are the medians of those ratios (one noisy round moves neither).
 * Also the CPU each side costs this process per read, which other work on the machine hardly
 * moves (the latencies do). Prints the table and the goals (mean at most 1.10x, p99 at most
 * 1.2x); last line is JSON.
 */
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { ProcurementClient } from '../src/client/procurement-client.ts';
import { TenderDetail } from '../src/contract/schemas.ts';
import { loadAverage } from './support/load.ts';
import { BENCH_KEY, benchFolder, serveSandbox } from './support/serve-sandbox.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const bench = benchFolder('tenderbot-bench-client-');
const server = await serveSandbox({ db: join(bench.dir, 'bench.db'), fixture: bench.fixture, demo: 5000 });
const baseUrl = server.baseUrl;

const client = new ProcurementClient({ baseUrl, apiKey: BENCH_KEY });
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 16 });
const headers = { authorization: `Bearer ${BENCH_KEY}`, accept: 'application/json' };
const ids = (await client.tenders.search({ limit: 100 })).data.map((tender) => tender.id);

const bare = async (id: string) => {
  const response = await request(`${baseUrl}/v1/tenders/${encodeURIComponent(id)}`, {
    headers,
    dispatcher: agent,
  });
  if (response.statusCode !== 200) throw new Error(`bare request answered ${response.statusCode}`);
  return ((await response.body.json()) as { data: unknown }).data;
};
const typed = (id: string) => client.tenders.get(id);

/** This process's CPU time (user + system, µs) spent in each side's rounds: the callers' own cost. */
const cpuMicros = { bare: 0, client: 0 };

/**
 * PER_ROUND reads by CONNECTIONS callers at once; each read's time (µs) goes into `samples`, and
 * the process's CPU time over the round into `cpuMicros[side]`.
 */
async function round(fn: (id: string) => Promise<unknown>, samples: number[], side?: keyof typeof cpuMicros) {
  const cpuBefore = process.cpuUsage();
  let next = 0;
  const caller = async () => {
    for (let index = next++; index < PER_ROUND; index = next++) {
      const started = process.hrtime.bigint();
      await fn(ids[index % ids.length] as string);
      samples.push(Number(process.hrtime.bigint() - started) / 1000);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, caller));
  const cpu = process.cpuUsage(cpuBefore);
  if (side) cpuMicros[side] += cpu.user + cpu.system;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return Number((sorted[Math.floor(sorted.length / 2)] as number).toFixed(3));
};

try {
  const warm: number[] = [];
  await round(bare, warm);
  await round(typed, warm);
  const bareSamples: number[] = [];
  const clientSamples: number[] = [];
  const meanRatios: number[] = [];
  const p99Ratios: number[] = [];
  for (let index = 0; index < ROUNDS; index++) {
    const bareRound: number[] = [];
    const clientRound: number[] = [];
    // Alternate which goes first, so neither always follows the other.
    if (index % 2 === 0) {
      await round(bare, bareRound, 'bare');
      await round(typed, clientRound, 'client');
    } else {
      await round(typed, clientRound, 'client');
      await round(bare, bareRound, 'bare');
    }
    const [bareRoundStats, clientRoundStats] = [stats(bareRound), stats(clientRound)];
    meanRatios.push(clientRoundStats.meanUs / bareRoundStats.meanUs);
    p99Ratios.push(clientRoundStats.p99Us / bareRoundStats.p99Us);
    bareSamples.push(...bareRound);
    clientSamples.push(...clientRound);
  }
  const bareStats = stats(bareSamples);
  const clientStats = stats(clientSamples);
  const ratio = median(meanRatios);
  const p99Ratio = median(p99Ratios);
  const goals = { meanAtMost110Percent: ratio <= 1.1, p99AtMost120Percent: p99Ratio <= 1.2 };
  const costs = await whereTheTimeGoes();
  // CPU a read costs the caller: hardly moved by other work on the machine, unlike the latencies.
  const cpuPerRead = {
    bareUs: Math.round((cpuMicros.bare / bareSamples.length) * 10) / 10,
    clientUs: Math.round((cpuMicros.client / clientSamples.length) * 10) / 10,
  };
  const cpuRatio = Math.round((cpuPerRead.clientUs / cpuPerRead.bareUs) * 1000) / 1000;
  const load = loadAverage();
  console.log(
    `\n${bareSamples.length} GET /v1/tenders/{id} each, ${CONNECTIONS} callers at once, over loopback; ${ROUNDS} rounds; load average ${load}`,
  );
  console.log('| caller | mean µs | p50 µs | p99 µs |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| bare undici request + json() | ${bareStats.meanUs} | ${bareStats.p50Us} | ${bareStats.p99Us} |`,
  );
  console.log(
    `| ProcurementClient.tenders.get | ${clientStats.meanUs} | ${clientStats.p50Us} | ${clientStats.p99Us} |`,
  );
  console.log(
    `where the client's extra time goes, per answer, in this process: zod parse of the detail ${costs.zodParseUs} µs; JSON.parse ${costs.jsonParseUs} µs (the bare request pays it too)`,
  );
  console.log(
    `caller CPU per read (this process, user + system): bare ${cpuPerRead.bareUs} µs, client ${cpuPerRead.clientUs} µs (${cpuRatio}x)`,
  );
  const verdict = (met: boolean) => (met ? 'met' : 'not met');
  console.log(
    `median of the rounds' ratios: mean ${ratio}x (goal at most 1.10x: ${verdict(goals.meanAtMost110Percent)}), p99 ${p99Ratio}x (goal at most 1.2x: ${verdict(goals.p99AtMost120Percent)})`,
  );
  console.log(
    JSON.stringify({
      bench: 'client',
      requests: bareSamples.length,
      connections: CONNECTIONS,
      rounds: ROUNDS,
      loadAverage: load,
      tenderbot: clientStats,
      baseline: bareStats,
      bare: bareStats,
      client: clientStats,
      ratio,
      p99Ratio,
      costs,
      cpuPerRead,
      cpuRatio,
      goals,
      goalMet: goals.meanAtMost110Percent && goals.p99AtMost120Percent,
      attempts: client.attempts,
    }),
  );
} finally {
  await client.close();
  await agent.close();
  await server.stop();
  bench.cleanup();
}

/** JSON.parse and the contract's zod parse of real detail answers, timed alone (µs each). */
async function whereTheTimeGoes(): Promise<{ jsonParseUs: number; zodParseUs: number }> {
  const bodies: string[] = [];
  for (const id of ids.slice(0, 50)) {
    const response = await request(`${baseUrl}/v1/tenders/${encodeURIComponent(id)}`, {
      headers,
      dispatcher: agent,
    });
    bodies.push(await response.body.text());
  }
  const times = 20_000;
  const time = (work: (index: number) => unknown) => {
    for (let index = 0; index < 2000; index++) work(index);
    const started = performance.now();
    for (let index = 0; index < times; index++) work(index);
    return Math.round(((performance.now() - started) / times) * 10_000) / 10;
  };
  const parsed = bodies.map((body) => JSON.parse(body));
  return {
    jsonParseUs: time((index) => JSON.parse(bodies[index % bodies.length] as string)),
    zodParseUs: time((index) => TenderDetail.safeParse(parsed[index % parsed.length])),
  };
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (fraction: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] as number);
  return {
    meanUs: Math.round(samples.reduce((sum, value) => sum + value, 0) / samples.length),
    p50Us: at(0.5),
    p99Us: at(0.99),
  };
}
