import { startTenderbot } from './process.ts';

export interface WorkbenchProcess {
  url: string;
  /** The service's base URL, without `/v1`. */
  serviceUrl: string;
  keyToConnect: string;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Runs `tenderbot start` (what `npm start` runs) with no Slack credentials, on free ports and the
 * given data folder, and resolves once it prints the page's address. Demo data (700 tenders)
 * unless `args` says otherwise (`--real-data`, say).
 */
export async function startWorkbenchProcess(
  dataDir: string,
  args: string[] = ['--demo', '700'],
): Promise<WorkbenchProcess> {
  const env = { ...process.env };
  delete env.SLACK_BOT_TOKEN;
  const started = await startTenderbot(
    ['start', '--data', dataDir, '--port', '0', '--service-port', '0', '--bot-port', '0', ...args],
    (output) => {
      const url = /Open (http:\/\/\S+\/)/.exec(output)?.[1];
      const serviceUrl = /service: +(http:\/\/\S+)\/v1/.exec(output)?.[1];
      const key = /paste into \/tender connect: (pis_\S+)/.exec(output)?.[1];
      return url && serviceUrl && key ? { url, serviceUrl, key } : null;
    },
    env,
  );
  return {
    url: started.found.url,
    serviceUrl: started.found.serviceUrl,
    keyToConnect: started.found.key,
    output: started.output,
    stop: () => started.stop(),
  };
}
