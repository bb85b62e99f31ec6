import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** `tenderbot`'s entry: its first line says which Node flags it runs with. */
export const TENDERBOT_BIN = resolve(import.meta.dirname, '../../bin/tenderbot.js');

/**
 * The Node flags a script's first line gives (`#!/usr/bin/env -S node --flag …`), so that the
 * benchmarks start `tenderbot` as the command itself runs, not on Node's defaults.
 */
export function nodeFlagsOf(script: string): string[] {
  const first = readFileSync(script, 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\/usr\/bin\/env(?: -S)? node((?: --?[\w-]+(?:=\S+)?)*)\s*$/.exec(first);
  if (!match) throw new Error(`${script} does not start with a node shebang: ${first}`);
  return (match[1] ?? '').split(' ').filter(Boolean);
}

export const TENDERBOT_NODE_FLAGS = nodeFlagsOf(TENDERBOT_BIN);

/**
 * The flags the benchmarks start `tenderbot` with: the command's own, or BENCH_NODE_FLAGS when set
 * (`BENCH_NODE_FLAGS=` runs on Node's defaults, to measure what the flags change).
 */
export const BENCH_NODE_FLAGS =
  process.env.BENCH_NODE_FLAGS !== undefined
    ? process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean)
    : TENDERBOT_NODE_FLAGS;
