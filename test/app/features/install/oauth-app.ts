import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { BotConfig, loadBotConfig } from '../../../../src/app/config.ts';
import type { BotStore, Subscription } from '../../../../src/app/storage/bot-store.ts';
import { openBotStore } from '../../../../src/app/storage/open-bot-store.ts';
import { type BotApp, composeBot } from '../../../../src/cli/compose-bot.ts';
import { FakeSlack } from '../../../../src/fake-slack/fake-slack.ts';
import { startTestSandbox, type TestSandbox } from '../../../support/sandbox.ts';

/** The app's credentials in Slack's settings, shared by every copy of one test's app. */
export interface OAuthCredentials {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
}

export function newCredentials(): OAuthCredentials {
  return {
    clientId: `${1000 + Math.floor(Math.random() * 9000)}.${1000 + Math.floor(Math.random() * 9000)}`,
    clientSecret: `client-secret-${randomBytes(8).toString('hex')}`,
    stateSecret: randomBytes(24).toString('hex'),
  };
}

export interface OAuthApp {
  bot: BotApp;
  store: BotStore;
  config: BotConfig;
  /** `http://127.0.0.1:PORT`. */
  base: string;
  /** What this copy wrote in its log. */
  logged: string[];
  stop(): Promise<void>;
}

/**
 * A copy of the real app in many-workspaces mode, in this process, on `databaseUrl`, with the
 * fake Slack's signing secret. Unless `receives` is false it becomes where the fake Slack sends
 * requests and its redirect URL (`SLACK_REDIRECT_URI` only when `namedRedirect`).
 */
export async function startOAuthApp(options: {
  slack: FakeSlack;
  serviceUrl: string;
  databaseUrl: string;
  credentials: OAuthCredentials;
  encryptionKey: string;
  previousKey?: string;
  namedRedirect?: boolean;
  receives?: boolean;
  logLevel?: string;
  /** More environment, parsed as is (BotConfig.parse), without loadBotConfig's checks of the modes. */
  unchecked?: Record<string, string>;
}): Promise<OAuthApp> {
  const { slack, credentials } = options;
  const port = options.namedRedirect ? await freePort() : 0;
  const environment = {
    SLACK_CLIENT_ID: credentials.clientId,
    SLACK_CLIENT_SECRET: credentials.clientSecret,
    SLACK_STATE_SECRET: credentials.stateSecret,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_API_URL: slack.apiUrl,
    PROCUREMENT_API_URL: options.serviceUrl,
    DATABASE_URL: options.databaseUrl,
    ENCRYPTION_KEY: options.encryptionKey,
    ...(options.previousKey ? { ENCRYPTION_KEY_PREVIOUS: options.previousKey } : {}),
    ...(options.namedRedirect ? { SLACK_REDIRECT_URI: `http://127.0.0.1:${port}/slack/oauth_redirect` } : {}),
    PORT: String(port),
  };
  const config = options.unchecked
    ? BotConfig.parse({ ...environment, ...options.unchecked })
    : loadBotConfig(environment, '');
  const store = openBotStore(config.DATABASE_URL);
  const logged: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logged.push(String(chunk));
      done();
    },
  });
  const bot = composeBot({
    config,
    store,
    logger: pino({ level: options.logLevel ?? 'info' }, destination),
    scheduler: { pollMs: null },
  });
  const base = `http://127.0.0.1:${await bot.start()}`;
  if (options.receives !== false) {
    slack.appUrl = `${base}/slack/events`;
    // Slack's settings: the app's credentials and its redirect URL (or, with a named one, its address).
    slack.oauthApp = {
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      redirectUrls: [options.namedRedirect ? `${base}/` : `${base}/slack/oauth_redirect`],
    };
  }
  return {
    bot,
    store,
    config,
    base,
    logged,
    stop: async () => {
      await bot.stop();
      await store.close();
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A channel's daily deadline reminder (what `/tender subscribe deadlines DAYS` stores), due at `nextRunAt`. */
export function deadlineSubscription(fields: {
  id: string;
  teamId: string;
  channelId: string;
  createdBy: string;
  days: number;
  nextRunAt: Date;
}): Subscription {
  const { days, ...rest } = fields;
  return {
    ...rest,
    kind: 'deadlines',
    target: JSON.stringify({ days }),
    cadence: 'daily',
    localTime: '09:00',
    timeZone: 'Europe/London',
    createdAt: new Date(),
    pausedReason: null,
    cursor: null,
    skippedCount: 0,
  };
}

/** The service, a fake Slack with no app installed yet, and a copy of the app in many-workspaces mode. */
export interface InstallStack {
  sandbox: TestSandbox;
  slack: FakeSlack;
  app: OAuthApp;
  credentials: OAuthCredentials;
  /** `sqlite:` in the sandbox's folder. */
  databaseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts an InstallStack: `prepare` adds workspaces (or the workbench's routes) to the fake Slack
 * before it starts; `app` gives the first copy's options beyond the defaults (a random key).
 */
export async function startInstallStack(
  options: { prepare?: (slack: FakeSlack) => void; app?: Partial<Parameters<typeof startOAuthApp>[0]> } = {},
): Promise<InstallStack> {
  const sandbox = await startTestSandbox();
  const slack = new FakeSlack({ signingSecret: `signing-${randomBytes(8).toString('hex')}`, botToken: '' });
  options.prepare?.(slack);
  await slack.start();
  const credentials = newCredentials();
  const databaseUrl = `sqlite:${join(sandbox.dir, 'bot.db')}`;
  const app = await startOAuthApp({
    slack,
    serviceUrl: sandbox.baseUrl,
    databaseUrl,
    credentials,
    encryptionKey: randomBytes(32).toString('base64'),
    ...options.app,
  });
  return {
    sandbox,
    slack,
    app,
    credentials,
    databaseUrl,
    stop: async () => {
      await app.stop();
      await slack.stop();
      await sandbox.stop();
    },
  };
}
