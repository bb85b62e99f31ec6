import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { ocdsFilesIn } from '../service/sandbox.ts';
import { PublicRecordsRefusal } from '../service/store/public-records-meta.ts';
import { stopSignal } from '../shared/stop-signal.ts';
import { integerOption, UsageError } from './options.ts';
import { startWorkbench, type WorkspaceKey } from './start-workbench.ts';

interface StartArgs {
  values: {
    data?: string;
    port?: string;
    'service-port'?: string;
    'bot-port'?: string;
    'mcp-port'?: string;
    demo?: string;
    'real-data'?: boolean;
    ocds?: string;
    'many-workspaces'?: boolean;
  };
}

/** Where the real OCDS files sit beside a checkout, and the workbench folder that serves them. */
export const DEFAULT_OCDS_FOLDER = '../shared/data/ocds';
const REAL_DATA_DIR = './data/real';

/**
 * `tenderbot start` (npm start): the real app when Slack credentials are configured; otherwise
 * the local workbench (service, fake Slack with its page, and the app), with nothing outside.
 */
export async function runStart({ values }: StartArgs): Promise<number> {
  const fromFile = existsSync('.env') ? parseEnv(readFileSync('.env', 'utf8')) : {};
  // A bot token (one workspace) or an app's client id (installed to many through Add to Slack).
  const slackConfigured = ['SLACK_BOT_TOKEN', 'SLACK_CLIENT_ID'].some(
    (name) => process.env[name] || fromFile[name],
  );
  if (slackConfigured) {
    const { runBot } = await import('./bot.ts');
    return runBot();
  }
  const realData = values['real-data'] === true;
  if (values.ocds && !realData) throw new UsageError('--ocds goes with --real-data');
  if (realData && values.demo) throw new UsageError('--demo and --real-data cannot be used together');
  const imports = realData ? realDataFiles(values.ocds ?? DEFAULT_OCDS_FOLDER) : undefined;
  if (imports) process.stdout.write('Reading the real OCDS files (once per data folder; about 10 s)…\n');
  // Real data gets a folder of its own: demo and real tenders are never mixed in one database.
  const dataDir = values.data ?? (realData ? REAL_DATA_DIR : './data');
  const stopped = stopSignal();
  const workbench = await startWorkbench({
    dataDir,
    imports,
    port: integerOption('port', values.port, 3030),
    servicePort: integerOption('service-port', values['service-port'], 4010),
    botPort: integerOption('bot-port', values['bot-port'], 3000),
    mcpPort:
      values['mcp-port'] === undefined ? undefined : integerOption('mcp-port', values['mcp-port'], 4020),
    demo: values.demo ? integerOption('demo', values.demo, 5000, 1) : undefined,
    manyWorkspaces: values['many-workspaces'] === true,
  }).catch((error: unknown) => {
    if (!(error instanceof PublicRecordsRefusal)) throw error;
    throw new Error(
      realData
        ? `${dataDir} holds generated demo tenders, and real data is never mixed with them. Leave out --data (real data has its own folder, ${REAL_DATA_DIR}) or give --data a new folder.`
        : `${dataDir} cannot be served as it is: ${error.message}`,
    );
  });
  process.stdout.write(
    [
      'No Slack credentials (SLACK_BOT_TOKEN): starting the local workbench.',
      imports
        ? `  data:     real tenders from ${imports.length} OCDS files in ${values.ocds ?? DEFAULT_OCDS_FOLDER}`
        : '  data:     generated demo tenders (npm start -- --real-data serves the real OCDS files)',
      `  service:  ${workbench.serviceUrl}/v1 (reference at ${workbench.serviceUrl}/docs)`,
      ...(values['many-workspaces']
        ? [
            '  Slack:    two workspaces; Tenderbot is installed in the first (add it to the second from the page)',
          ]
        : []),
      ...keyLines(workbench.keysToConnect),
      `  MCP:      ${workbench.mcpUrl} for assistants, with the header "Authorization: Bearer ${workbench.keyToConnect}" (docs/mcp.md)`,
      `Open ${workbench.url} (Tenderbot says hello in #general) and type /tender search cleaning`,
      '',
    ].join('\n'),
  );
  await stopped;
  await workbench.stop();
  return 0;
}

/**
 * The keys to paste into `/tender connect`, new at every start: one per workspace, each of its own
 * organisation, so that two workspaces do not share bookmarks by pasting the same key.
 */
function keyLines(keys: readonly WorkspaceKey[]): string[] {
  if (keys.length === 1)
    return [`  a key to paste into /tender connect: ${keys[0]?.key} (new at every start)`];
  return [
    '  keys, new at every start, one per workspace (each of its own organisation, so bookmarks are not shared):',
    ...keys.map(
      (entry) =>
        `  a key to paste into /tender connect: ${entry.key} (in ${entry.teamName}; organisation ${entry.organisationName})`,
    ),
  ];
}

/** The OCDS files of the folder, or a sentence saying where they were looked for. */
function realDataFiles(folder: string): string[] {
  const files = existsSync(folder) ? ocdsFilesIn(folder) : [];
  if (files.length === 0)
    throw new UsageError(
      `--real-data found no OCDS files (.json, .jsonl, plain or .gz) in ${folder}; name the folder with --ocds DIR`,
    );
  return files;
}
