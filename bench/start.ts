/**
 * npm run bench:start — what starting a copy of the app costs: `tenderbot bot` (HTTP mode, one
 * workspace's token, bot store on a new SQLite file) started BENCH_STARTS times (5 by default) as
 * a person runs it, bin/tenderbot.js through tsx's loader, and as often from the copy the tests
 * compile once a run (test/support/compiled-tenderbot.ts), alternating, each until it logs
 * "tenderbot is running", then stopped. Slack and the service are addresses nothing listens on:
 * the question the app asks Slack at start is refused at once, so nothing outside is measured. Prints the process's CPU (every thread, the loader's
 * included) and the time to ready, median and worst, then one JSON line.
 */

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileTenderbot } from '../test/support/compiled-tenderbot.ts';
import { cpuMicros, loadAverage, quantile } from './support/load.ts';
import { BENCH_NODE_FLAGS } from './support/node-flags.ts';

/** As a person runs it: the sources through tsx's loader. */
const SOURCES_BIN = join(import.meta.dirname, '../bin/tenderbot.js');
const STARTS = Math.max(1, Math.floor(Number(process.env.BENCH_STARTS ?? 5) || 5));
const dir = mkdtempSync(join(tmpdir(), 'tenderbot-bench-start-'));

interface Start {
  readyMs: number;
  cpuMs: number;
}

/** One start of `bin bot` until it says it is running; its CPU at that moment. */
function startOnce(bin: string, index: number): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [...BENCH_NODE_FLAGS, bin, 'bot'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH,
      SLACK_BOT_TOKEN: `xoxb-bench-${randomBytes(6).toString('hex')}`,
      SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
      // Nothing listens here: the token's check at start is refused at once and logged.
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      PROCUREMENT_API_URL: 'http://127.0.0.1:9',
      PROCUREMENT_API_KEY: `pis_${randomBytes(32).toString('base64url').slice(0, 43)}`,
      DATABASE_URL: `sqlite:${join(dir, `bot-${index}.db`)}`,
      ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      PORT: '0',
      LOG_LEVEL: 'info',
    },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`not running after 60 s:\n${output}`));
    }, 60_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      if (!output.includes('tenderbot is running')) return;
      const readyMs = performance.now() - started;
      const cpu = cpuMicros(child.pid ?? 0);
      clearTimeout(timer);
      child.stdout.off('data', read);
      // A stop that hangs is ended, not waited for for ever.
      const stopTimer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => {
        clearTimeout(stopTimer);
        resolve({ readyMs, cpuMs: (cpu ?? Number.NaN) / 1000 });
      });
      child.kill('SIGTERM');
    };
    child.stdout.on('data', read);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.once('exit', (code) => {
      if (!output.includes('tenderbot is running')) {
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before running:\n${output}`));
      }
    });
  });
}

function summary(starts: Start[]) {
  const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
  const ready = sorted(starts.map((start) => start.readyMs));
  const cpu = sorted(starts.map((start) => start.cpuMs));
  return {
    readyMsMedian: Math.round(quantile(ready, 0.5)),
    readyMsWorst: Math.round(ready.at(-1) ?? 0),
    cpuMsMedian: Math.round(quantile(cpu, 0.5)),
    cpuMsWorst: Math.round(cpu.at(-1) ?? 0),
  };
}

let build: Awaited<ReturnType<typeof compileTenderbot>> | null = null;
try {
  build = await compileTenderbot();
  const COMPILED_BIN = build.bin;
  const loadBefore = loadAverage();
  const sources: Start[] = [];
  const compiled: Start[] = [];
  // One of each first, unmeasured: tsx's cache of transforms and the file cache are warm for both.
  await startOnce(SOURCES_BIN, -1);
  await startOnce(COMPILED_BIN, -2);
  for (let index = 0; index < STARTS; index++) {
    console.error(`  start ${index + 1} of ${STARTS}…`);
    sources.push(await startOnce(SOURCES_BIN, index * 2));
    compiled.push(await startOnce(COMPILED_BIN, index * 2 + 1));
  }
  const loadAfter = loadAverage();
  const figures = { sources: summary(sources), compiled: summary(compiled) };
  console.log(`\n${STARTS} starts each, alternating; load average ${loadBefore} → ${loadAfter}`);
  console.log('| `tenderbot bot` started | ready, median (worst) ms | CPU, median (worst) ms |');
  console.log('|---|---:|---:|');
  for (const [name, figure] of [
    ['bin/tenderbot.js, through tsx (as a person runs it)', figures.sources],
    ['compiled once (as the tests start it)', figures.compiled],
  ] as const) {
    console.log(
      `| ${name} | ${figure.readyMsMedian} (${figure.readyMsWorst}) | ${figure.cpuMsMedian} (${figure.cpuMsWorst}) |`,
    );
  }
  const cpuRatio = Math.round((figures.compiled.cpuMsMedian / figures.sources.cpuMsMedian) * 100) / 100;
  console.log(`CPU of a compiled start over a start through tsx: ${cpuRatio}`);
  console.log(
    JSON.stringify({
      bench: 'start',
      starts: STARTS,
      loadAverage: { before: loadBefore, after: loadAfter },
      ...figures,
      ratio: { cpu: cpuRatio },
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
  build?.remove();
}
