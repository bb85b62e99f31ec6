import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { startWorkbench } from '../workbench/start-workbench.ts';
import { integerOption } from './main.ts';

interface StartArgs {
  values: { data?: string; port?: string; 'service-port'?: string; 'bot-port'?: string; demo?: string };
}

/**
 * `tenderbot start` (npm start): the real app when Slack credentials are configured; otherwise
 * the local workbench (service, fake Slack with its page, and the app), with nothing outside.
 */
export async function runStart({ values }: StartArgs): Promise<number> {
  const fromFile = existsSync('.env') ? parseEnv(readFileSync('.env', 'utf8')) : {};
  if (process.env.SLACK_BOT_TOKEN || fromFile.SLACK_BOT_TOKEN) {
    const { runBot } = await import('../app/main.ts');
    return runBot();
  }
  const workbench = await startWorkbench({
    dataDir: values.data ?? './data',
    port: integerOption('port', values.port, 3030),
    servicePort: integerOption('service-port', values['service-port'], 4010),
    botPort: integerOption('bot-port', values['bot-port'], 3000),
    demo: values.demo ? integerOption('demo', values.demo, 5000, 1) : undefined,
  });
  process.stdout.write(
    [
      'No Slack credentials (SLACK_BOT_TOKEN): starting the local workbench.',
      `  service:  ${workbench.serviceUrl}/v1 (reference at ${workbench.serviceUrl}/docs)`,
      `  a key to paste into /tender connect: ${workbench.keyToConnect}`,
      `Open ${workbench.url} and type /tender search cleaning`,
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await workbench.stop();
  return 0;
}
