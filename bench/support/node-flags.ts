import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** `tenderbot`'s entry, the sources through tsx's loader (as test/support/process.ts names it too). */
export const SOURCES_BIN = resolve(import.meta.dirname, '../../bin/tenderbot.js');

/**
 * The Node flags `npm start` runs `tenderbot` with (`node --flag … bin/tenderbot.js start` in
 * package.json), so that the benchmarks start it as the command runs, not on Node's defaults.
 * docs/operations.md gives the same flags to a deployment through NODE_OPTIONS.
 */
export function nodeFlagsOfScript(script: string): string[] {
  const match = /^node((?: --[\w-]+(?:=\S+)?)*) bin\/tenderbot\.js\b/.exec(script);
  if (!match) throw new Error(`not a script that runs bin/tenderbot.js with node: ${script}`);
  return (match[1] ?? '').split(' ').filter(Boolean);
}

const PACKAGE = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

export const TENDERBOT_NODE_FLAGS = nodeFlagsOfScript(PACKAGE.scripts.start ?? '');

/**
 * The flags the benchmarks start `tenderbot` (and the baselines beside it) with: the command's own,
 * or BENCH_NODE_FLAGS when set (`BENCH_NODE_FLAGS=` runs on Node's defaults, to measure what the
 * flags change).
 */
export const BENCH_NODE_FLAGS =
  process.env.BENCH_NODE_FLAGS !== undefined
    ? process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean)
    : TENDERBOT_NODE_FLAGS;
