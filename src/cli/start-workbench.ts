import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BotConfig } from '../app/config.ts';
import { createLogger } from '../app/logger.ts';
import { openBotStore } from '../app/storage/open-bot-store.ts';
import { SCOPES } from '../contract/schemas.ts';
import { FakeSlack } from '../fake-slack/fake-slack.ts';
import { DEFAULT_MCP_PORT, startMcpHttp } from '../mcp/http.ts';
import { createMcpLogger } from '../mcp/logger.ts';
import {
  DEMO_ORGANISATION_ID,
  ensureSecondDemoOrganisation,
  SECOND_DEMO_ORGANISATION,
} from '../service/demo/demo-organisation.ts';
import { startSandbox } from '../service/sandbox.ts';
import { addWorkbenchRoutes } from '../workbench/workbench-routes.ts';
import { installApp, inviteToGeneral, SECOND_WORKSPACE } from '../workbench/workspaces.ts';
import { composeBot } from './compose-bot.ts';

export interface WorkbenchOptions {
  dataDir: string;
  host?: string;
  /** The page (and the fake Slack); 0 picks a free port. */
  port?: number;
  servicePort?: number;
  botPort?: number;
  /** The MCP endpoint (/mcp); 4020 by default, a free port when `port` is 0 (tests). */
  mcpPort?: number;
  demo?: number;
  /**
   * OCDS files to serve instead of demo data: imported into the data folder's database once
   * (all or nothing), and refused on a database that holds demo tenders.
   */
  imports?: string[];
  logLevel?: string;
  /**
   * The app in its many-workspaces mode ("Add to Slack"): the fake Slack gets a second workspace,
   * the first is installed at start as a person would, the second from the page's "Add Tenderbot
   * to a workspace". Each workspace connects its own key (no default key in this mode).
   */
  manyWorkspaces?: boolean;
}

export interface WorkspaceKey {
  teamId: string;
  teamName: string;
  organisationName: string;
  key: string;
}

export interface RunningWorkbench {
  url: string;
  serviceUrl: string;
  /** The MCP endpoint over the same service, for assistants; each sends its own key as a bearer token. */
  mcpUrl: string;
  /** A fresh key of the demo organisation's owner, to paste into `/tender connect` (the first workspace's). */
  keyToConnect: string;
  /**
   * A fresh key for each workspace, each of its own organisation of the demo service, so that two
   * workspaces never share bookmarks by pasting the same key.
   */
  keysToConnect: WorkspaceKey[];
  slack: FakeSlack;
  stop(): Promise<void>;
}

/**
 * Everything a person needs to try Tenderbot with no Slack workspace: the local service with
 * demo data (or imported real data), the fake Slack with the workbench page on it, and the real
 * app between them. Composing the parts is the command line's job (src/workbench has only the
 * page and its routes), so it lives here, beside `tenderbot start`.
 */
export async function startWorkbench(options: WorkbenchOptions): Promise<RunningWorkbench> {
  const host = options.host ?? '127.0.0.1';
  mkdirSync(options.dataDir, { recursive: true });
  const sandbox = await startSandbox({
    db: join(options.dataDir, 'sandbox.db'),
    host,
    port: options.servicePort ?? 4010,
    demo: options.demo,
    imports: options.imports,
    skipFinishedImport: true,
    logLevel: 'warn',
  });
  const { organisations } = sandbox.app.serviceContext;
  const owner = organisations.isMember(DEMO_ORGANISATION_ID, 'usr-demo-owner');
  if (!owner) throw new Error('the workbench needs the demo organisation: start it on a new data folder');
  const many = options.manyWorkspaces === true;
  if (many) ensureSecondDemoOrganisation(sandbox.app.serviceContext);
  // Keys are shown once and stored hashed, so each start makes the ones it needs.
  const newKey = (userId: string, name: string, organisationId: string = DEMO_ORGANISATION_ID) =>
    organisations.createKey({
      name,
      organisationId,
      userId,
      scopes: [...SCOPES],
      expiresAt: null,
      rateLimitPerSecond: 100,
    }).key;
  // Both of the same person: bids and bookmarks are seen by whoever made the key, so connecting
  // the printed key (as the README asks) keeps in sight everything done before it.
  const defaultKey = newKey('usr-demo-member', 'workbench default');
  const keyToConnect = newKey('usr-demo-member', 'workbench connect');

  // Passes each caller's own key through to the service; it holds no key of its own.
  const mcp = await startMcpHttp({
    serviceUrl: sandbox.baseUrl,
    host,
    port: options.mcpPort ?? (options.port === 0 ? 0 : DEFAULT_MCP_PORT),
    logger: createMcpLogger('warn'),
  });

  const signingSecret = randomBytes(16).toString('hex');
  const botToken = many ? '' : `xoxb-workbench-${randomBytes(8).toString('hex')}`;
  const oauth = { clientId: '1000000001.2000000002', clientSecret: randomBytes(16).toString('hex') };
  const slack = new FakeSlack({ signingSecret, botToken, ...(many ? { oauth } : {}) });
  if (many) slack.addWorkspace(SECOND_WORKSPACE);
  addWorkbenchRoutes(slack, { host });
  await slack.start(options.port ?? 3030, host);
  const keysToConnect: WorkspaceKey[] = [
    { teamId: slack.teamId, teamName: slack.teamName, organisationName: 'Demo Bids Ltd', key: keyToConnect },
    ...(many
      ? [
          {
            teamId: SECOND_WORKSPACE.teamId,
            teamName: SECOND_WORKSPACE.teamName,
            organisationName: SECOND_DEMO_ORGANISATION.name,
            key: newKey(SECOND_DEMO_ORGANISATION.ownerId, 'workbench connect', SECOND_DEMO_ORGANISATION.id),
          },
        ]
      : []),
  ];

  const config = BotConfig.parse({
    ...(many
      ? {
          SLACK_CLIENT_ID: oauth.clientId,
          SLACK_CLIENT_SECRET: oauth.clientSecret,
          SLACK_STATE_SECRET: randomBytes(32).toString('hex'),
        }
      : { SLACK_BOT_TOKEN: botToken, PROCUREMENT_API_KEY: defaultKey }),
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: slack.apiUrl,
    PROCUREMENT_API_URL: sandbox.baseUrl,
    DATABASE_URL: `sqlite:${join(options.dataDir, 'workbench-bot.db')}`,
    ENCRYPTION_KEY: persistentSecret(join(options.dataDir, 'workbench-encryption.key')),
    LOG_LEVEL: options.logLevel ?? 'warn',
    PORT: options.botPort ?? 3000,
    // Like every other part of the workbench, on loopback only: its /metrics and /healthz too.
    HOST: host,
  });
  forgetWelcomedChannels(join(options.dataDir, 'workbench-bot.db'));
  const store = openBotStore(config.DATABASE_URL);
  const bot = composeBot({ config, store, logger: createLogger(config.LOG_LEVEL, process.stderr) });
  const botPort = await bot.start();
  const appBase = `http://${host}:${botPort}`;
  slack.appUrl = `${appBase}/slack/events`;
  if (many) {
    slack.oauthApp = { ...oauth, redirectUrls: [`${appBase}/slack/oauth_redirect`] };
    await installApp(slack, appBase, slack.teamId);
  }
  // As when someone invites Tenderbot to #general: its welcome, with three things to try, is the
  // first thing the page shows.
  if (await inviteToGeneral(slack)) {
    // The welcome is posted while the event is answered; wait for it (a few seconds at most).
    const general = slack.channels.find((channel) => channel.name === 'general')?.id ?? '';
    for (let tries = 0; tries < 50 && slack.messagesIn(general).length === 0; tries++)
      await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = slack.apiUrl.replace(/api\/$/, '');
  return {
    url,
    serviceUrl: sandbox.baseUrl,
    mcpUrl: mcp.url,
    keyToConnect,
    keysToConnect,
    slack,
    stop: async () => {
      await bot.stop();
      await store.close();
      await slack.stop();
      await mcp.close();
      await sandbox.close();
    },
  };
}

/** The bot's encryption key for the workbench, made once and kept, so connected keys survive restarts. */
function persistentSecret(path: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const secret = randomBytes(32).toString('base64');
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * The fake Slack's channels are new at every start (their messages are gone), so the app's memory
 * of having welcomed them belongs to channels no one can see any more: it is forgotten, and the
 * welcome is posted again in the new #general. Bids, subscriptions and keys stay.
 */
function forgetWelcomedChannels(path: string): void {
  if (!existsSync(path)) return;
  const db = new Database(path);
  try {
    const table = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'welcomed_channels'")
      .get();
    if (table) db.prepare('DELETE FROM welcomed_channels').run();
  } finally {
    db.close();
  }
}
