import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve(import.meta.dirname, '../../bin/tenderbot.js');

export interface WorkbenchProcess {
  url: string;
  keyToConnect: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Runs `tenderbot start` (what `npm start` runs) with no Slack credentials, on free ports and a
 * fresh data folder, and resolves once it prints the page's address.
 */
export async function startWorkbenchProcess(
  dataDir: string,
  extraEnv: Record<string, string> = {},
): Promise<WorkbenchProcess> {
  const env = { ...process.env, ...extraEnv };
  delete env.SLACK_BOT_TOKEN;
  const child = spawn(
    process.execPath,
    [
      BIN,
      'start',
      '--data',
      dataDir,
      '--port',
      '0',
      '--service-port',
      '0',
      '--bot-port',
      '0',
      '--demo',
      '700',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const [url, keyToConnect] = await new Promise<[string, string]>((ready, fail) => {
    const timer = setInterval(() => {
      const url = /Open (http:\/\/\S+\/)/.exec(output)?.[1];
      const key = /paste into \/tender connect: (pis_\S+)/.exec(output)?.[1];
      if (url && key) {
        clearInterval(timer);
        ready([url, key]);
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      fail(new Error(`tenderbot start exited with ${code}:\n${output}`));
    });
  });
  return {
    url,
    keyToConnect,
    output: () => output,
    stop: async () => {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
