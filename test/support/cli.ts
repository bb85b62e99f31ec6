import { execFile } from 'node:child_process';
import { TENDERBOT_BIN as BIN, startTenderbot } from './process.ts';

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
  readonly output: string;
  stop(): Promise<number | null>;
}

/** Starts `tenderbot sandbox serve ARGS` and resolves once it prints its `listening on` line. */
export async function serveCli(args: string[]): Promise<ServingProcess> {
  const started = await startTenderbot(
    ['sandbox', 'serve', ...args],
    (output) => /listening on (http:\/\/\S+)\/v1/.exec(output)?.[1] ?? null,
  );
  return {
    baseUrl: started.found,
    get output() {
      return started.output();
    },
    stop: started.stop,
  };
}
