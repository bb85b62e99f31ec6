import { randomUUID } from 'node:crypto';
import { App, LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from 'pino';
import { describeFailure } from './adapters/describe-failure.ts';
import { scheduledSlack } from './adapters/scheduled-slack.ts';
import { slackFetch } from './adapters/slack-fetch.ts';
import { SlackUsers } from './adapters/slack-users.ts';
import { tellPerson } from './adapters/tell-person.ts';
import { WorkspaceClients } from './adapters/workspace-clients.ts';
import { failureMessage } from './blocks/messages.ts';
import type { BotConfig } from './config.ts';
import type { FeatureContext } from './features/feature-context.ts';
import { registerListeners } from './listeners/register-listeners.ts';
import { GuardedReceiver } from './receiver/guarded-receiver.ts';
import { KeyCipher } from './security/key-cipher.ts';
import type { BotStore } from './storage/bot-store.ts';
import { Scheduler, type SchedulerOptions } from './subscriptions/scheduler.ts';

export interface BotAppOptions {
  config: BotConfig;
  store: BotStore;
  logger: Logger;
  clock?: () => Date;
  /** When a person hears that the service is slow (default 2.5 s: Slack users expect an answer within 3). */
  slowNoticeMs?: number;
  /**
   * The subscriptions' scheduler, which always runs: tests set `pollMs: null` to run its passes
   * themselves (`bot.scheduler.runDue()`) on their own clock, or shorten its lease and pace.
   */
  scheduler?: Pick<
    SchedulerOptions,
    | 'pollMs'
    | 'owner'
    | 'leaseMs'
    | 'paceMs'
    | 'settleAfterMs'
    | 'concurrency'
    | 'feedReadLimit'
    | 'keepMs'
    | 'pruneEveryMs'
    | 'sleep'
  >;
}

export interface BotApp {
  app: App;
  /** Posts the channels' subscriptions (started and stopped with the app). */
  scheduler: Scheduler;
  /** Starts listening (HTTP mode: on PORT; 0 picks a free one) and resolves with the port. */
  start(): Promise<number | null>;
  stop(): Promise<void>;
}

/** The Slack app: thin on purpose; the features live in ./features, the wiring in ./listeners. */
export function createBotApp(options: BotAppOptions): BotApp {
  const { config, store, logger } = options;
  const boltLogger = toSlackLogger(logger);
  // Bolt's answers at a response_url and the Web API calls go over a keep-alive undici pool rather
  // than the built-in fetch's streams (about a quarter of a /tender help's CPU; perf's notes).
  const appFetch = slackFetch();
  const clientOptions = {
    slackApiUrl: config.SLACK_API_URL,
    // Bolt's default retries for about 30 minutes; a late answer in chat is worse than a clear failure.
    retryConfig: { retries: 2, factor: 2, minTimeout: 200, maxTimeout: 2000 },
    fetch: appFetch.fetch,
  };
  // HTTP mode: a receiver that nothing a request holds can stop (see GuardedReceiver).
  const receiver = config.SLACK_APP_TOKEN
    ? undefined
    : new GuardedReceiver({ signingSecret: config.SLACK_SIGNING_SECRET ?? '', store, logger });
  const app = receiver
    ? new App({
        token: config.SLACK_BOT_TOKEN,
        logger: boltLogger,
        clientOptions,
        receiver,
        extendedErrorHandler: true,
      })
    : new App({
        token: config.SLACK_BOT_TOKEN,
        appToken: config.SLACK_APP_TOKEN,
        socketMode: true,
        logger: boltLogger,
        clientOptions,
        extendedErrorHandler: true,
      });
  const cipher = new KeyCipher(config.ENCRYPTION_KEY);
  const context: FeatureContext = {
    config,
    store,
    cipher,
    logger,
    clock: options.clock ?? (() => new Date()),
    slowNoticeMs: options.slowNoticeMs ?? 2500,
    users: new SlackUsers(app.client),
    clients: new WorkspaceClients(store, cipher, {
      serviceUrl: config.PROCUREMENT_API_URL,
      apiKey: config.PROCUREMENT_API_KEY ?? null,
      timeoutMs: 10_000,
    }),
  };
  // Scheduled posts go through a lean client of their own: a 429 comes back at once (no retry, no
  // queue paused for every channel) and the scheduler waits Retry-After for that delivery alone.
  const schedulerSlack = scheduledSlack({
    token: config.SLACK_BOT_TOKEN,
    apiUrl: config.SLACK_API_URL,
    timeoutMs: 10_000,
  });
  const scheduler = new Scheduler({
    store,
    slack: schedulerSlack.slack,
    clients: context.clients,
    logger: logger.child({ part: 'scheduler' }),
    clock: context.clock,
    // Due work is looked for four times a second, so a post waits at most a quarter second.
    pollMs: 250,
    ...options.scheduler,
  });
  context.scheduler = scheduler;
  registerListeners(app, context);
  // Whatever a listener fails with, the person who asked still hears a sentence.
  // With extendedErrorHandler, Bolt passes the request's body too (Bolt does not export that type).
  app.error((async ({ error, body }: { error: Error; body?: unknown }) => {
    const original = (error as { original?: unknown }).original ?? error;
    const reference = randomUUID().slice(0, 8);
    logger.error({ err: original, reference }, 'unhandled error in a listener');
    const { sentence } = describeFailure(original);
    await tellPerson(app.client, body as unknown, failureMessage(sentence, reference, null)).catch(
      (tellError: unknown) =>
        logger.error({ err: tellError, reference }, 'could not tell the person about a failure'),
    );
  }) as unknown as Parameters<typeof app.error>[0]);

  return {
    app,
    scheduler,
    start: async () => {
      if (!receiver) {
        await app.start();
        scheduler.start();
        return null;
      }
      // Said once in the log: a workspace whose stored key this ENCRYPTION_KEY cannot read.
      await context.clients.reportUnreadableKeys(logger);
      await app.start(config.PORT);
      scheduler.start();
      return receiver.port ?? config.PORT;
    },
    stop: async () => {
      await scheduler.stop();
      await app.stop();
      await context.clients.close();
      await schedulerSlack.close();
      await appFetch.close();
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
