import { App, HTTPReceiver, LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from 'pino';
import { Agent } from 'undici';
import type { BotConfig } from './config.ts';
import type { FeatureContext } from './features/feature-context.ts';
import { registerListeners } from './listeners/register-listeners.ts';
import { KeyCipher } from './security/key-cipher.ts';
import { SlackUsers } from './services/slack-users.ts';
import { WorkspaceClients } from './services/workspace-clients.ts';
import type { BotStore } from './storage/bot-store.ts';

export interface BotAppOptions {
  config: BotConfig;
  store: BotStore;
  logger: Logger;
  clock?: () => Date;
}

export interface BotApp {
  app: App;
  /** Starts listening (HTTP mode: on PORT; 0 picks a free one) and resolves with the port. */
  start(): Promise<number | null>;
  stop(): Promise<void>;
}

/** The Slack app: thin on purpose; the features live in ./features, the wiring in ./listeners. */
export function createBotApp(options: BotAppOptions): BotApp {
  const { config, store, logger } = options;
  const boltLogger = toSlackLogger(logger);
  const clientOptions = {
    slackApiUrl: config.SLACK_API_URL,
    // Bolt's default retries for about 30 minutes; a late answer in chat is worse than a clear failure.
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 2000 },
  };
  const receiver = config.SLACK_APP_TOKEN
    ? undefined
    : new HTTPReceiver({
        signingSecret: config.SLACK_SIGNING_SECRET ?? '',
        endpoints: '/slack/events',
        logger: boltLogger,
        customRoutes: [
          {
            path: '/healthz',
            method: ['GET'],
            handler: (_request, response) => {
              response.writeHead(200, { 'content-type': 'application/json' });
              response.end('{"ok":true}');
            },
          },
        ],
      });
  const app = receiver
    ? new App({ token: config.SLACK_BOT_TOKEN, logger: boltLogger, clientOptions, receiver })
    : new App({
        token: config.SLACK_BOT_TOKEN,
        appToken: config.SLACK_APP_TOKEN,
        socketMode: true,
        logger: boltLogger,
        clientOptions,
      });
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 32 });
  const cipher = new KeyCipher(config.ENCRYPTION_KEY);
  const context: FeatureContext = {
    config,
    store,
    cipher,
    logger,
    clock: options.clock ?? (() => new Date()),
    users: new SlackUsers(app.client),
    clients: new WorkspaceClients(
      store,
      cipher,
      {
        serviceUrl: config.PROCUREMENT_API_URL,
        apiKey: config.PROCUREMENT_API_KEY ?? null,
        timeoutMs: 10_000,
      },
      dispatcher,
    ),
  };
  registerListeners(app, context);
  app.error(async (error) => {
    logger.error({ err: error }, 'unhandled error in a listener');
  });

  return {
    app,
    start: async () => {
      if (!receiver) {
        await app.start();
        return null;
      }
      const server = (await app.start(config.PORT)) as unknown as import('node:http').Server;
      const address = server.address();
      return typeof address === 'object' && address ? address.port : config.PORT;
    },
    stop: async () => {
      await app.stop();
      await dispatcher.close();
    },
  };
}

/** Bolt's logger interface over pino, so Bolt's own messages are JSON lines with the rest. */
function toSlackLogger(logger: Logger): SlackLogger {
  let level: LogLevel = LogLevel.INFO;
  const text = (messages: unknown[]) =>
    messages.map((message) => (typeof message === 'string' ? message : JSON.stringify(message))).join(' ');
  return {
    debug: (...messages) => logger.debug({ source: 'bolt' }, text(messages)),
    info: (...messages) => logger.info({ source: 'bolt' }, text(messages)),
    warn: (...messages) => logger.warn({ source: 'bolt' }, text(messages)),
    error: (...messages) => logger.error({ source: 'bolt' }, text(messages)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
