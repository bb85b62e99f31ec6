/**
 * npm run bench:sandbox — the local service under load on loopback, beside the plain way.
 *
 * For each size (BENCH_SIZES=10000,100000,1000000; by default 10,000 and BENCH_TENDERS, which is
 * 100,000 unless set, and with BENCH_TENDERS=1000000 all three) it starts `tenderbot sandbox serve`
 * as its own process on a fresh database of demo tenders, drives it with autocannon (10
 * connections, 3 s warm-up, 10 s measured), then serves the same file the plain way
 * (bench/support/serve-plain.ts: Fastify, FTS5 match joined to the rows, ORDER BY publication
 * date, LIMIT 20, as ../shared/ANCHORS.md measures) and drives it with the same requests.
 * Tender reads, checked (key hash, scope, current membership, rate) against the plain server's
 * read by key, are measured in alternating rounds (BENCH_READ_ROUNDS, 2 by default, each half of
 * BENCH_DURATION) with both servers up, so both sides see the same stretch of the machine's load.
 * Prints one table of every figure at every size, with ratios, then one JSON line whose
 * `summary` gives, per size, the cold searches' p99 (every query new, nothing kept), the checked
 * read's ratio to the plain one and the load average around each figure, and whose `goals` say
 * which are met. BENCH_DB_DIR=folder keeps each size's database there and reuses it on the next
 * run (a million tenders take about 7 minutes to generate; an older schema is migrated on start).
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { SEARCH_THREAD_FROM } from '../src/service/sandbox.ts';
import {
  CONNECTIONS,
  DURATION_S,
  type Figures,
  figuresOf,
  loadAverage,
  type MeasuredRun,
  measureLoad,
  measureRun,
  pooled,
  WARMUP_S,
} from './support/load.ts';
import {
  BENCH_KEY,
  benchFolder,
  residentBytes,
  type ServedSandbox,
  servePlain,
  serveSandbox,
} from './support/serve-sandbox.ts';

const TENDERS = Number(process.env.BENCH_TENDERS ?? 100_000);
const SIZES = process.env.BENCH_SIZES
  ? process.env.BENCH_SIZES.split(',').map(Number)
  : [...new Set([...[10_000, 100_000, 1_000_000].filter((size) => size < TENDERS), TENDERS])];
const WORD = process.env.BENCH_WORD ?? 'cleaning';
const FILTER_CLASSES = ['region', 'status', 'value range', 'deadline window', 'CPV prefix', 'buyer'] as const;
const READ_ROUNDS = Math.max(1, Number(process.env.BENCH_READ_ROUNDS ?? 2));
/**
 * A folder where each size's database is kept between runs (`bench-100000.db`…) and reused when
 * there, instead of generated afresh (7 minutes at a million tenders). Unset: a fresh temporary one.
 */
const DB_DIR = process.env.BENCH_DB_DIR ? resolve(process.env.BENCH_DB_DIR) : null;
/** Goals: cold searches (every query new, nothing kept) under this p99; checked reads at least this share of plain ones. */
const COLD_P99_GOAL_MS = 20;
const CHECKED_READ_GOAL = 0.6;
/** Load averages after each measured load, by its name (cleared per size). */
let loadAverages: Record<string, number | null> = {};

interface SizeResult {
  tenders: number;
  /** Demo generation and the service's first start, seconds (only the start when `reused`). */
  generationSeconds: number;
  /** The database was kept from an earlier run (BENCH_DB_DIR), not generated. */
  reused: boolean;
  databaseBytes: number;
  /** After the cached runs (a fresh process on the generated file). */
  serviceRssBytes: number | null;
  /** The service started again on the same file, after its runs (filter index read): memory in steady use. */
  restartedRssBytes: number | null;
  plainRssBytes: number | null;
  /** The first filtered search after a start (seconds): SQL while the filter index is read in the background. */
  firstFilteredSeconds: number;
  /**
   * From the service's start until filtered searches answer from the filter index (seconds; the
   * columns are read in a worker thread meanwhile): filtered loads are measured after it.
   */
  filterIndexReadySeconds: number;
  firstFilteredNotCachedSeconds: number;
  searchHits: number;
  tenderbot: {
    search: Figures;
    searchFiltered: Figures;
    detail: Figures;
    searchNotCached: Figures;
    searchFilteredNotCached: Figures;
    /** The same with the search thread the other way round from the size's default (see SEARCH_THREAD_FROM). */
    searchFilteredNotCachedOtherThread: Figures;
  };
  /** Whether the service walked searches in a thread of its own at this size, by default. */
  searchThread: boolean;
  plain: { search: Figures; searchFiltered: Figures; detail: Figures };
  ratios: { search: Ratio; searchFiltered: Ratio; detail: Ratio };
  /** The 1-minute load average right after each load was measured, by the load's name. */
  loadAverages: Record<string, number | null>;
}

interface Ratio {
  /** Tenderbot's req/s over the plain way's: above 1 is faster. */
  throughput: number;
  /** Tenderbot's p99 over the plain way's: below 1 is faster. */
  p99: number;
}

if (DB_DIR) mkdirSync(DB_DIR, { recursive: true });
const results: SizeResult[] = [];
const loadBefore = loadAverage();
for (const size of SIZES) results.push(await benchSize(size));
const loadAfter = loadAverage();
printTable(results);

const at = (tenders: number) => results.find((result) => result.tenders === tenders);
const largest = results[results.length - 1] as SizeResult;
const smallest = results[0] as SizeResult;
const goal = (result: SizeResult | undefined, pick: (result: SizeResult) => boolean) =>
  result === undefined ? 'not measured' : pick(result);
/** A p99 goal counts only for a run in which every request was answered. */
const clean = (figures: Figures) => figures.errors === 0 && figures.requestsPerSecond > 0;
const coldUnderGoal = (figures: Figures) => clean(figures) && figures.p99 < COLD_P99_GOAL_MS;
const goals = {
  searchP99Under20msAt100k: goal(
    at(100_000),
    (r) => clean(r.tenderbot.search) && r.tenderbot.search.p99 < 20,
  ),
  filteredSearchP99Under20msAt100k: goal(
    at(100_000),
    (r) => clean(r.tenderbot.searchFiltered) && r.tenderbot.searchFiltered.p99 < 20,
  ),
  searchP99Under20msAt1M: goal(
    at(1_000_000),
    (r) => clean(r.tenderbot.search) && r.tenderbot.search.p99 < 20,
  ),
  filteredSearchP99Under20msAt1M: goal(
    at(1_000_000),
    (r) => clean(r.tenderbot.searchFiltered) && r.tenderbot.searchFiltered.p99 < 20,
  ),
  // Detail reads unchanged by size: the largest size keeps 80 % of the smallest's throughput.
  detailUnchangedBySize:
    largest.tenderbot.detail.requestsPerSecond >= 0.8 * smallest.tenderbot.detail.requestsPerSecond,
  fasterThanPlainSearchEverySize: results.every((r) => r.ratios.search.throughput > 1),
  fasterThanPlainFilteredEverySize: results.every((r) => r.ratios.searchFiltered.throughput > 1),
  coldWordSearchP99Under20msAt100k: goal(at(100_000), (r) => coldUnderGoal(r.tenderbot.searchNotCached)),
  coldFilteredSearchP99Under20msAt100k: goal(at(100_000), (r) =>
    coldUnderGoal(r.tenderbot.searchFilteredNotCached),
  ),
  coldWordSearchP99Under20msAt1M: goal(at(1_000_000), (r) => coldUnderGoal(r.tenderbot.searchNotCached)),
  coldFilteredSearchP99Under20msAt1M: goal(at(1_000_000), (r) =>
    coldUnderGoal(r.tenderbot.searchFilteredNotCached),
  ),
  checkedReadAtLeast0_6xPlainAt100k: goal(
    at(100_000),
    (r) => r.ratios.detail.throughput >= CHECKED_READ_GOAL,
  ),
  checkedReadAtLeast0_6xPlainAt1M: goal(
    at(1_000_000),
    (r) => r.ratios.detail.throughput >= CHECKED_READ_GOAL,
  ),
};
/** Per size, the figures the goals of cold searches and checked reads are judged by, each with its load. */
const summary = results.map((r) => ({
  tenders: r.tenders,
  coldWordSearchP99Ms: r.tenderbot.searchNotCached.p99,
  coldFilteredSearchP99Ms: r.tenderbot.searchFilteredNotCached.p99,
  coldLoadAverages: {
    word: r.loadAverages['Tenderbot word search, nothing kept'] ?? null,
    filtered: r.loadAverages['Tenderbot word + filter, nothing kept'] ?? null,
  },
  checkedReadPerSecond: r.tenderbot.detail.requestsPerSecond,
  plainReadPerSecond: r.plain.detail.requestsPerSecond,
  checkedReadRatio: r.ratios.detail.throughput,
  readsLoadAverage: r.loadAverages['tender reads, checked and plain'] ?? null,
  goals: {
    coldWordSearchP99Under20ms: coldUnderGoal(r.tenderbot.searchNotCached),
    coldFilteredSearchP99Under20ms: coldUnderGoal(r.tenderbot.searchFilteredNotCached),
    checkedReadAtLeast0_6xPlain: r.ratios.detail.throughput >= CHECKED_READ_GOAL,
  },
}));
console.log(
  `Goals: ${Object.entries(goals)
    .map(([name, value]) => `${name} ${value === true ? 'met' : value === false ? 'not met' : value}`)
    .join('; ')}`,
);
console.log(
  JSON.stringify({
    bench: 'sandbox',
    connections: CONNECTIONS,
    durationSeconds: DURATION_S,
    loadAverage: { before: loadBefore, after: loadAfter },
    word: WORD,
    filterClasses: FILTER_CLASSES,
    summary,
    sizes: results,
    goals,
  }),
);

async function benchSize(tenders: number): Promise<SizeResult> {
  loadAverages = {};
  const bench = benchFolder('tenderbot-bench-');
  // BENCH_DB_DIR keeps each size's database there between runs (generated when missing).
  const db = DB_DIR ? join(DB_DIR, `bench-${tenders}.db`) : join(bench.dir, 'bench.db');
  const reused = existsSync(db);
  const serve = (extra: string[]) => serveSandbox({ db, fixture: bench.fixture, demo: tenders, extra });
  let server: ServedSandbox | null = null;
  try {
    console.error(`${tenders.toLocaleString('en-GB')} tenders: ${reused ? `reusing ${db}` : 'generating…'}`);
    const started = Date.now();
    server = await serve([]);
    const generationSeconds = (Date.now() - started) / 1000;
    // Measured in a fresh process on the generated file, as a deployment serves it: the process
    // that generated a million tenders keeps a heap grown by it.
    await server.stop();
    const startedAt = performance.now();
    server = await serve([]);
    const samples = sampleValues(db);
    const searchPath = `/v1/tenders?q=${encodeURIComponent(WORD)}&limit=20`;
    const probe = await request(`${server.baseUrl}${searchPath}`, {
      headers: { authorization: `Bearer ${BENCH_KEY}` },
    });
    const searchHits = ((await probe.body.json()) as { pagination: { total: number } }).pagination.total;

    const tenderbotRequests = requestsFor('/v1', samples, { authorization: `Bearer ${BENCH_KEY}` });
    // Right after the start: the first filtered search does not wait for the filter index, and
    // no load is measured while a worker thread reads it.
    const firstFilteredSeconds = await firstFilteredSearch(server);
    const filterIndexReadySeconds = await filterIndexReady(server, startedAt);
    const search = await measure(server, 'Tenderbot word search', tenderbotRequests.search);
    const searchFiltered = await measure(server, 'Tenderbot word + filter', tenderbotRequests.filtered());
    const plainRequests = requestsFor('', samples, {});
    const plainReader = await servePlain(db);
    let reads: { tenderbot: Figures; plain: Figures };
    try {
      reads = await measureReads(server, plainReader, tenderbotRequests.detail, plainRequests.detail);
    } finally {
      await plainReader.stop();
    }
    const detail = reads.tenderbot;
    const serviceRssBytes = residentBytes(server.pid);
    await server.stop();

    // Started again with the cache of totals and of word hits off: what a first search costs.
    server = await serve(['--count-cache', '0']);
    const searchNotCached = await measure(
      server,
      'Tenderbot word search, nothing kept',
      tenderbotRequests.search,
    );
    const firstFilteredNotCachedSeconds = await firstFilteredSearch(server);
    const searchFilteredNotCached = await measure(
      server,
      'Tenderbot word + filter, nothing kept',
      tenderbotRequests.filtered(),
    );
    const restartedRssBytes = residentBytes(server.pid);
    await server.stop();

    // The same once more with the search thread the other way round from this size's default:
    // what the thread changes, measured in the same run.
    const searchThread = tenders >= SEARCH_THREAD_FROM;
    const otherThreadStarted = performance.now();
    server = await serve(['--count-cache', '0', '--search-thread', searchThread ? 'off' : 'on']);
    await filterIndexReady(server, otherThreadStarted);
    const searchFilteredNotCachedOtherThread = await measure(
      server,
      `Tenderbot word + filter, nothing kept, search thread ${searchThread ? 'off' : 'on'}`,
      tenderbotRequests.filtered(),
    );
    await server.stop();

    // The plain server is started afresh for each target: a slow target's backlog (seconds a
    // query at a million tenders) must not fall on the next one.
    let plainRssBytes: number | null = null;
    const plainMeasure = async (name: string, requests: autocannon.Request[]) => {
      server = await servePlain(db);
      const figures = await measure(server, name, requests);
      plainRssBytes = Math.max(plainRssBytes ?? 0, residentBytes(server.pid) ?? 0);
      await server.stop();
      server = null;
      return figures;
    };
    const plain = {
      search: await plainMeasure('plain word search', plainRequests.search),
      searchFiltered: await plainMeasure('plain word + filter', plainRequests.filtered()),
      detail: reads.plain,
    };

    const tenderbot = {
      search,
      searchFiltered,
      detail,
      searchNotCached,
      searchFilteredNotCached,
      searchFilteredNotCachedOtherThread,
    };
    return {
      tenders,
      searchThread,
      generationSeconds,
      reused,
      databaseBytes: fileBytes(db) + fileBytes(`${db}-wal`),
      serviceRssBytes,
      restartedRssBytes,
      plainRssBytes,
      searchHits,
      firstFilteredSeconds,
      filterIndexReadySeconds,
      firstFilteredNotCachedSeconds,
      tenderbot,
      plain,
      ratios: {
        search: ratio(search, plain.search),
        searchFiltered: ratio(searchFiltered, plain.searchFiltered),
        detail: ratio(detail, plain.detail),
      },
      loadAverages,
    };
  } finally {
    await server?.stop();
    bench.cleanup();
  }
}

interface Samples {
  regions: string[];
  buyers: string[];
  cpvPrefixes: string[];
  detailIds: string[];
}

/** Filter values and tender ids read from the generated file (read only). */
function sampleValues(path: string): Samples {
  const db = new Database(path, { readonly: true });
  try {
    const column = (sql: string) => db.prepare(sql).pluck().all() as string[];
    return {
      regions: column('SELECT DISTINCT region FROM tenders WHERE region IS NOT NULL'),
      buyers: column('SELECT buyer_id FROM tenders GROUP BY buyer_id ORDER BY count(*) DESC LIMIT 200'),
      cpvPrefixes: column('SELECT DISTINCT substr(code, 1, 3) FROM tender_cpv'),
      detailIds: column('SELECT id FROM tenders WHERE sort_key % 97 = 0 LIMIT 2000'),
    };
  } finally {
    db.close();
  }
}

/**
 * The same requests for either server. Filtered searches take the six filter classes in turn,
 * and every one is a query not asked before, so no remembered total helps: value ranges and
 * deadline windows move by the request's number; region, status, CPV prefix and buyer (a few
 * values each) carry a publication bound a second later each time, far in the future, so it
 * changes the query and no hit.
 */
function requestsFor(prefix: string, samples: Samples, headers: Record<string, string>) {
  const word = `q=${encodeURIComponent(WORD)}`;
  const pick = (items: string[], n: number) => encodeURIComponent(items[n % items.length] as string);
  const unique = (n: number) => `publishedTo=${new Date(Date.UTC(2100, 0, 1) + n * 1000).toISOString()}`;
  const deadlineBase = Date.now() - 90 * 86_400_000;
  const filterOf = [
    (n: number) => `region=${pick(samples.regions, n)}&${unique(n)}`,
    (n: number) => `status=${['open', 'closed', 'awarded', 'cancelled', 'planned'][n % 5]}&${unique(n)}`,
    (n: number) => `valueMin=${10_000 + (n % 100_000)}&valueMax=${2_000_000 + n}`,
    (n: number) =>
      `deadlineFrom=${new Date(deadlineBase + n * 1000).toISOString()}&deadlineTo=${new Date(deadlineBase + n * 1000 + 120 * 86_400_000).toISOString()}`,
    (n: number) => `cpv=${pick(samples.cpvPrefixes, n)}&${unique(n)}`,
    (n: number) => `buyerId=${pick(samples.buyers, n)}&${unique(n)}`,
  ];
  return {
    search: [{ method: 'GET', path: `${prefix}/tenders?${word}&limit=20`, headers }] as autocannon.Request[],
    filtered: (): autocannon.Request[] => {
      let next = 0;
      return [
        {
          method: 'GET',
          headers,
          setupRequest: (req) => {
            const n = next++;
            const filter = filterOf[n % filterOf.length] as (n: number) => string;
            return {
              ...req,
              path: `${prefix}/tenders?${word}&${filter(Math.floor(n / filterOf.length))}&limit=20`,
            };
          },
        },
      ];
    },
    detail: (): autocannon.Request[] => {
      let next = 0;
      return [
        {
          method: 'GET',
          headers,
          setupRequest: (req) => ({ ...req, path: `${prefix}/tenders/${pick(samples.detailIds, next++)}` }),
        },
      ];
    },
  };
}

/** One filtered search, timed alone right after the start (answered by SQL while the filter index is read). */
async function firstFilteredSearch(server: ServedSandbox): Promise<number> {
  const started = performance.now();
  const response = await request(
    `${server.baseUrl}/v1/tenders?q=${encodeURIComponent(WORD)}&region=London&limit=20`,
    {
      headers: { authorization: `Bearer ${BENCH_KEY}` },
      headersTimeout: 300_000,
      bodyTimeout: 300_000,
    },
  );
  await response.body.text();
  if (response.statusCode !== 200)
    throw new Error(`the first filtered search answered ${response.statusCode}`);
  return Math.round(performance.now() - started) / 1000;
}

/**
 * Waits until filtered searches answer from the filter index: three in a row in under 30 ms (SQL
 * takes about a second each at a million tenders). Each is a query not asked before (a publication
 * bound a second later each time, far in the future), so no total SQL remembered can pass for
 * the index. At most 3 minutes.
 */
async function filterIndexReady(server: ServedSandbox, startedAt: number): Promise<number> {
  const regions = ['London', 'Wales', 'Scotland', 'North West', 'South East', 'East of England'];
  let fast = 0;
  for (let attempt = 0; fast < 3 && performance.now() - startedAt < 180_000; attempt++) {
    const region = encodeURIComponent(regions[attempt % regions.length] as string);
    const bound = new Date(Date.UTC(2100, 0, 1) - (attempt + 1) * 1000).toISOString();
    const started = performance.now();
    const response = await request(
      `${server.baseUrl}/v1/tenders?q=${encodeURIComponent(WORD)}&region=${region}&publishedTo=${bound}&limit=20`,
      { headers: { authorization: `Bearer ${BENCH_KEY}` }, headersTimeout: 300_000, bodyTimeout: 300_000 },
    );
    await response.body.text();
    if (performance.now() - started < 30) fast++;
    else {
      fast = 0;
      await new Promise((wait) => setTimeout(wait, 250));
    }
  }
  return Math.round(performance.now() - startedAt) / 1000;
}

async function measure(
  server: ServedSandbox,
  name: string,
  requests: autocannon.Request[],
): Promise<Figures> {
  console.error(`  ${name}…`);
  const figures = await measureLoad(server.baseUrl, requests);
  loadAverages[name] = loadAverage();
  return figures;
}

/**
 * Checked tender reads (Tenderbot, every check of CONTRACT §3–4 on every request) and plain reads
 * by key, in alternating rounds with both servers up: Tenderbot, plain, Tenderbot, plain… Each
 * side's rounds are pooled (requests over their whole time, percentiles over every latency).
 */
async function measureReads(
  tenderbot: ServedSandbox,
  plain: ServedSandbox,
  tenderbotRequests: () => autocannon.Request[],
  plainRequests: () => autocannon.Request[],
): Promise<{ tenderbot: Figures; plain: Figures }> {
  console.error(`  tender reads, checked and plain, ${READ_ROUNDS} alternating rounds…`);
  const seconds = Math.max(1, DURATION_S / READ_ROUNDS);
  const tenderbotRounds: MeasuredRun[] = [];
  const plainRounds: MeasuredRun[] = [];
  for (let round = 0; round < READ_ROUNDS; round++) {
    const warmupSeconds = round === 0 ? WARMUP_S : 1;
    tenderbotRounds.push(
      await measureRun(tenderbot.baseUrl, tenderbotRequests(), { warmupSeconds, seconds }),
    );
    plainRounds.push(await measureRun(plain.baseUrl, plainRequests(), { warmupSeconds, seconds }));
  }
  loadAverages['tender reads, checked and plain'] = loadAverage();
  return { tenderbot: figuresOf(pooled(tenderbotRounds)), plain: figuresOf(pooled(plainRounds)) };
}

function ratio(tenderbot: Figures, plain: Figures): Ratio {
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    throughput: round(tenderbot.requestsPerSecond / Math.max(plain.requestsPerSecond, 1)),
    p99: round(tenderbot.p99 / Math.max(plain.p99, 0.01)),
  };
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function printTable(rows: SizeResult[]): void {
  const n = (value: number) => value.toLocaleString('en-GB');
  const mb = (bytes: number | null) => (bytes === null ? '?' : `${n(Math.round(bytes / 1e6))} MB`);
  const cell = (f: Figures) =>
    `${n(f.requestsPerSecond)} · ${f.p50} · ${f.p99}${f.errors ? ` (${f.errors} failed)` : ''}`;
  console.log(
    `\nc=${CONNECTIONS}, ${DURATION_S} s after ${WARMUP_S} s warm-up; word "${WORD}"; filters: ${FILTER_CLASSES.join(', ')} in turn, every query new; load average ${loadBefore} → ${loadAfter}`,
  );
  console.log(
    '| tenders | target | Tenderbot req/s · p50 · p99 ms | plain req/s · p50 · p99 ms | × req/s | × p99 |',
  );
  console.log('|---:|---|---|---|---:|---:|');
  for (const row of rows) {
    const size = n(row.tenders);
    console.log(
      `| ${size} | setup: ${row.reused ? 'database kept from an earlier run (BENCH_DB_DIR), first start' : 'generation + first start'} ${row.generationSeconds.toFixed(1)} s, database ${mb(row.databaseBytes)}, service RSS ${mb(row.serviceRssBytes)} (${mb(row.restartedRssBytes)} with nothing kept; plain ${mb(row.plainRssBytes)}); first filtered search ${row.firstFilteredSeconds} s (${row.firstFilteredNotCachedSeconds} s after restart), filter index ready ${row.filterIndexReadySeconds} s after start; "${WORD}" ${n(row.searchHits)} hits | | | | |`,
    );
    const line = (target: string, tenderbot: Figures, plain: Figures | null, r: Ratio | null) =>
      console.log(
        `| ${size} | ${target} | ${cell(tenderbot)} | ${plain ? cell(plain) : '—'} | ${r ? r.throughput : '—'} | ${r ? r.p99 : '—'} |`,
      );
    line('word search', row.tenderbot.search, row.plain.search, row.ratios.search);
    line(
      'word search + one filter, every query new',
      row.tenderbot.searchFiltered,
      row.plain.searchFiltered,
      row.ratios.searchFiltered,
    );
    line(
      'word search, nothing kept (`--count-cache 0`)',
      row.tenderbot.searchNotCached,
      row.plain.search,
      ratio(row.tenderbot.searchNotCached, row.plain.search),
    );
    line(
      `word + filter, nothing kept (\`--count-cache 0\`), search thread ${row.searchThread ? 'on' : 'off'} (the default at this size)`,
      row.tenderbot.searchFilteredNotCached,
      row.plain.searchFiltered,
      ratio(row.tenderbot.searchFilteredNotCached, row.plain.searchFiltered),
    );
    line(
      `word + filter, nothing kept, search thread ${row.searchThread ? 'off' : 'on'}`,
      row.tenderbot.searchFilteredNotCachedOtherThread,
      row.plain.searchFiltered,
      ratio(row.tenderbot.searchFilteredNotCachedOtherThread, row.plain.searchFiltered),
    );
    line(
      'tender read with every check (key, scope, membership, rate), rounds alternating with the plain read',
      row.tenderbot.detail,
      row.plain.detail,
      row.ratios.detail,
    );
  }
}
