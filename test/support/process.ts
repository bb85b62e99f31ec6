import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { inject } from 'vitest';

/** `tenderbot` as a person runs it: bin/tenderbot.js, the sources through tsx's loader. */
export const SOURCES_BIN = resolve(import.meta.dirname, '../../bin/tenderbot.js');
/** The `tenderbot` the tests start: compiled once for the run (test/support/compiled-tenderbot.ts). */
export const TENDERBOT_BIN = inject('tenderbotBin') ?? SOURCES_BIN;

export interface StartedProcess<T> {
  pid: number;
  /** What `ready` found in the output. */
  found: T;
  /** Everything the process has written so far, standard output and error together. */
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs `tenderbot ARGS` as its own process and resolves once `ready` finds what it waits for in
 * the output; fails, with the output, if the process exits first or nothing comes within 60 s.
 */
export function startTenderbot<T>(
  args: string[],
  ready: (output: string) => T | null,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StartedProcess<T>> {
  const child = spawn(process.execPath, [TENDERBOT_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolveStarted, fail) => {
    const finish = (error: Error | null, found?: T) => {
      clearTimeout(timer);
      child.stdout.off('data', collect);
      child.stderr.off('data', collect);
      child.stdout.on('data', append);
      child.stderr.on('data', append);
      child.off('exit', exitedEarly);
      if (error) {
        child.kill('SIGKILL');
        fail(error);
        return;
      }
      resolveStarted({
        pid: child.pid ?? 0,
        found: found as T,
        output: () => output,
        stop: () =>
          new Promise((stopped) => {
            child.once('exit', (code) => stopped(code));
            child.kill('SIGTERM');
          }),
      });
    };
    const append = (chunk: Buffer) => {
      output += chunk;
    };
    const collect = (chunk: Buffer) => {
      append(chunk);
      const found = ready(output);
      if (found !== null) finish(null, found);
    };
    const exitedEarly = (code: number | null) =>
      finish(new Error(`tenderbot ${args[0]} exited with ${code}:\n${output}`));
    const timer = setTimeout(
      () => finish(new Error(`tenderbot ${args[0]} did not get ready within 60 s:\n${output}`)),
      60_000,
    );
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', exitedEarly);
  });
}
