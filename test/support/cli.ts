import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/tenderbot.js');

/** Runs `tenderbot ARGS` to the end. */
export function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

export interface ServingProcess {
  baseUrl: string;
  output: string;
  stop(): Promise<number | null>;
}

/** Starts `tenderbot sandbox serve ARGS` and resolves once it prints its `listening on` line. */
export function serveCli(args: string[]): Promise<ServingProcess> {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'sandbox', 'serve', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((ready, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`serve did not start within 60 s:\n${output}`));
    }, 60_000);
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.stdout?.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)\/v1/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        ready({
          baseUrl: match[1],
          get output() {
            return output;
          },
          stop: () =>
            new Promise((stopped) => {
              child.once('exit', (code) => stopped(code));
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`serve exited with ${code} before listening:\n${output}`));
    });
  });
}
