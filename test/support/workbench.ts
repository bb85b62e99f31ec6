import { startTenderbot } from './process.ts';

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
export async function startWorkbenchProcess(dataDir: string): Promise<WorkbenchProcess> {
  const env = { ...process.env };
  delete env.SLACK_BOT_TOKEN;
  const started = await startTenderbot(
    ['start', '--data', dataDir, '--port', '0', '--service-port', '0', '--bot-port', '0', '--demo', '700'],
    (output) => {
      const url = /Open (http:\/\/\S+\/)/.exec(output)?.[1];
      const key = /paste into \/tender connect: (pis_\S+)/.exec(output)?.[1];
      return url && key ? { url, key } : null;
    },
    env,
  );
  return {
    url: started.found.url,
    keyToConnect: started.found.key,
    output: started.output,
    stop: async () => {
      await started.stop();
    },
  };
}
