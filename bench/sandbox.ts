/**
 * npm run bench:sandbox — the local service under load on loopback.
 *
 * Starts `tenderbot sandbox serve` as its own process on a fresh database of 100,000 demo
 * tenders, then drives it with autocannon (10 connections, 3 s warm-up, 10 s measured) for a
 * common-word search and for detail reads. Prints a table, then one JSON line of the figures.
 */
import { join } from 'node:path';
import autocannon from 'autocannon';
import { request } from 'undici';
import { BENCH_KEY, benchFolder, serveSandbox } from './support/serve-sandbox.ts';

const TENDERS = Number(process.env.BENCH_TENDERS ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP_S = 3;
const WORD = process.env.BENCH_WORD ?? 'cleaning';
const bench = benchFolder('tenderbot-bench-');
const serve = (extra: string[]) =>
  serveSandbox({ db: join(bench.dir, 'bench.db'), fixture: bench.fixture, demo: TENDERS, extra });

const started = Date.now();
let server = await serve([]);
let baseUrl = server.baseUrl;
const startupSeconds = (Date.now() - started) / 1000;

try {
  const headers = { authorization: `Bearer ${BENCH_KEY}` };
  const searchPath = `/v1/tenders?q=${encodeURIComponent(WORD)}&limit=20`;
  const probe = await request(`${baseUrl}${searchPath}`, { headers });
  const searchHits = ((await probe.body.json()) as { pagination: { total: number } }).pagination.total;
  const page = await request(`${baseUrl}/v1/tenders?limit=100&offset=5000`, { headers });
  const ids = ((await page.body.json()) as { data: { id: string }[] }).data.map((tender) => tender.id);

  const search = await measure('word search', [{ method: 'GET', path: searchPath, headers }]);
  // Every request a query never seen before (a value floor below every demo value keeps the hits),
  // so that no cached total helps: the cost of a first search with a filter.
  let floor = 0;
  const searchCold = await measure('word search + filter, every query new', [
    {
      method: 'GET',
      headers,
      setupRequest: (req) => ({ ...req, path: `${searchPath}&valueMin=${(floor++ % 5000) / 1000}` }),
    },
  ]);
  let next = 0;
  const detail = await measure('detail read', [
    {
      method: 'GET',
      headers,
      setupRequest: (req) => ({
        ...req,
        path: `/v1/tenders/${encodeURIComponent(ids[next++ % ids.length] as string)}`,
      }),
    },
  ]);

  // The same word search with the cache of totals off: what a search costs the first time.
  await server.stop();
  server = await serve(['--count-cache', '0']);
  baseUrl = server.baseUrl;
  const searchFirst = await measure('word search, totals not cached', [
    { method: 'GET', path: searchPath, headers },
  ]);

  const rows = [search, searchFirst, searchCold, detail];
  console.log(
    `\n${TENDERS.toLocaleString('en-GB')} tenders; "${WORD}" has ${searchHits.toLocaleString('en-GB')} hits; c=${CONNECTIONS}, ${DURATION_S} s after ${WARMUP_S} s warm-up`,
  );
  console.log('| target | req/s | p50 ms | p99 ms | non-2xx |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows)
    console.log(`| ${row.name} | ${row.requestsPerSecond} | ${row.p50} | ${row.p99} | ${row.errors} |`);
  console.log(
    JSON.stringify({
      tenders: TENDERS,
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      startupSeconds,
      word: WORD,
      searchHits,
      search,
      searchFirst,
      searchCold,
      detail,
      goals: {
        searchP99Under20ms: search.p99 < 20,
        uncachedSearchP99Under20ms: searchFirst.p99 < 20,
        detailOver5000rps: detail.requestsPerSecond > 5000,
      },
    }),
  );
} finally {
  await server.stop();
  bench.cleanup();
}

async function measure(name: string, requests: autocannon.Request[]) {
  const options = { url: baseUrl, connections: CONNECTIONS, requests };
  await autocannon({ ...options, duration: WARMUP_S });
  const result = await autocannon({ ...options, duration: DURATION_S });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}
