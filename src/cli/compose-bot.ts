import { randomUUID } from 'node:crypto';
import { App, ErrorCode, LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from 'pino';
import { scheduledSlack } from './adapters/scheduled-slack.ts';
import { slackFetch } from './adapters/slack-fetch.ts';
import { SlackUsers } from './adapters/slack-users.ts';
import { tellPerson } from './adapters/tell-person.ts';
import { parseAllowedServiceUrls, WorkspaceClients } from './adapters/workspace-clients.ts';
import { type BotConfig, oauthSettings } from './config.ts';
import { PgBossQueue } from './delivery/pg-boss-queue.ts';
import { Scheduler, type SchedulerOptions } from './delivery/scheduler.ts';
import { InstallFlow } from './features/install/install-flow.ts';
import { GuardedReceiver } from './receiver/guarded-receiver.ts';
import { QueuedCommandsReceiver } from './receiver/queued-commands-receiver.ts';
import { registerListeners } from './register-listeners.ts';
import { KeyCipher, UnreadableSecretError } from './security/key-cipher.ts';
import { isSubcommand } from './shared/commands/parse-command.ts';
import { describeFailure } from './shared/failure-sentences.ts';
import type { FeatureContext } from './shared/feature-context.ts';
import { useRequestScope } from './shared/request-scope.ts';
import { failureMessage } from './shared/views/messages.ts';
import { mrkdwn } from './shared/views/mrkdwn.ts';
import type { BotStore } from './storage/bot-store.ts';

export interface BotAppOptions {
  config: BotConfig;
  store: BotStore;
  logger: Logger;
  clock?: () => Date;
  /** What encrypts the stored keys and tokens (one built from ENCRYPTION_KEY when not given). */
  cipher?: KeyCipher;
  /** When a person hears that the service is slow (default 2.5 s: Slack users expect an answer within 3). */
  slowNoticeMs?: number;
  /**
   * The subscriptions' scheduler, which always runs: tests set `pollMs: null` to run its passes
   * themselves (`bot.scheduler.runDue()`) on their own clock, or shorten its lease and pace.
   */
  /**
   * The receiver's side of ANSWER_WORKERS: stores a slash command for the workers and resolves
   * true (it is then acknowledged at once), false to answer it here.
   */
  handOffCommand?: (body: Record<string, unknown>) => Promise<boolean>;
  /**
   * This process is an answer worker: no HTTP, no scheduler; it answers the commands the
   * receiver's process gives it (`bot.answers.take`) and says `onDone` for each.
   */
  answerWorker?: { onDone: (id: string) => void };
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
    | 'queue'
  >;
}

export interface BotApp {
  app: App;
  /** OAuth mode's install flow and installation store; null with one SLACK_BOT_TOKEN. */
  install: InstallFlow | null;
  /** Posts the channels' subscriptions (started and stopped with the app; never in an answer worker). */
  scheduler: Scheduler;
  /** An answer worker's receiver (null in the receiver's own process). */
  answers: QueuedCommandsReceiver | null;
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
  // During a key rotation the old key still reads what is not re-encrypted yet.
  const cipher = options.cipher ?? new KeyCipher(config.ENCRYPTION_KEY, config.ENCRYPTION_KEY_PREVIOUS);
  // Many workspaces: each installs through "Add to Slack", and each request's token is found in the
  // store (no copy kept in memory, so an uninstall holds at once for every copy of the app).
  const oauth = oauthSettings(config);
  const install = oauth
    ? new InstallFlow({
        ...oauth,
        slackApiUrl: config.SLACK_API_URL,
        store,
        cipher,
        logger: logger.child({ part: 'install' }),
        clientOptions: {
          slackApiUrl: config.SLACK_API_URL,
          fetch: appFetch.fetch,
          retryConfig: { retries: 1 },
        },
        ...(options.clock ? { clock: options.clock } : {}),
      })
    : null;
  // An answer worker is given its commands; it gives up on one by telling the person.
  const answers = options.answerWorker
    ? new QueuedCommandsReceiver({
        logger,
        onDone: options.answerWorker.onDone,
        ...(options.clock ? { clock: options.clock } : {}),
        giveUp: async (body) => {
          const reference = randomUUID().slice(0, 8);
          logger.error(
            { reference, teamId: teamOf(body) },
            'told a person their command will not be answered',
          );
          await tellPerson(app.client, respondableOnly(body), failureMessage(GAVE_UP, reference, null));
        },
      })
    : null;
  const { handOffCommand } = options;
  // HTTP mode: a receiver that nothing a request holds can stop (see GuardedReceiver).
  const httpReceiver =
    answers || config.SLACK_APP_TOKEN
      ? undefined
      : new GuardedReceiver({
          signingSecret: config.SLACK_SIGNING_SECRET ?? '',
          store,
          logger,
          ...(install ? { install } : {}),
          // `/tender connect` stays here: it opens a modal with a trigger_id that lasts 3 s.
          ...(handOffCommand
            ? {
                handOff: (body: Record<string, unknown>) =>
                  isSubcommand(typeof body.text === 'string' ? body.text : '', 'connect')
                    ? Promise.resolve(false)
                    : handOffCommand(body),
              }
            : {}),
        });
  const receiver = answers ?? httpReceiver;
  const credentials = install ? { authorize: install.authorize } : { token: config.SLACK_BOT_TOKEN };
  const app = receiver
    ? new App({
        ...credentials,
        logger: boltLogger,
        clientOptions,
        receiver,
        extendedErrorHandler: true,
        // No listener keeps conversation state: Bolt's store would cost a middleware on every request.
        convoStore: false,
      })
    : new App({
        ...credentials,
        appToken: config.SLACK_APP_TOKEN,
        socketMode: true,
        logger: boltLogger,
        clientOptions,
        extendedErrorHandler: true,
        convoStore: false,
      });
  // A workspace's bot token for what runs outside a request (scheduled posts, people's roles).
  const tokenFor = install
    ? (teamId: string) => install.botTokenFor(teamId)
    : async () => config.SLACK_BOT_TOKEN ?? null;
  const context: FeatureContext = {
    config,
    store,
    cipher,
    logger,
    clock: options.clock ?? (() => new Date()),
    slowNoticeMs: options.slowNoticeMs ?? 2500,
    users: new SlackUsers(app.client, undefined, install ? tokenFor : null),
    clients: new WorkspaceClients(store, cipher, {
      serviceUrl: config.PROCUREMENT_API_URL,
      // Never a default key when anyone may install (the configuration refuses it too).
      apiKey: install ? null : (config.PROCUREMENT_API_KEY ?? null),
      timeoutMs: 10_000,
      // Other service addresses an admin may connect the workspace's key to (none by default).
      allowedServiceUrls: parseAllowedServiceUrls(config.PROCUREMENT_API_URLS_ALLOWED),
    }),
  };
  // Scheduled posts go through a lean client of their own: a 429 comes back at once (no retry, no
  // queue paused for every channel) and the scheduler waits Retry-After for that delivery alone.
  const schedulerSlack = scheduledSlack({
    ...(install ? { tokenFor } : { token: config.SLACK_BOT_TOKEN }),
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
    // On PostgreSQL the copies take their turns through pg-boss; on SQLite, the table's leases.
    ...(config.DATABASE_URL.startsWith('postgres')
      ? {
          queue: new PgBossQueue({
            connectionString: config.DATABASE_URL,
            store,
            logger: logger.child({ part: 'queue' }),
            // Longer than a delivery's lease (60 s): the lease fences the post, the job only its turn.
            expireInSeconds: 120,
          }),
        }
      : {}),
    ...options.scheduler,
  });
  context.scheduler = scheduler;
  useRequestScope(app);
  registerListeners(app, context, install);
  // Whatever a listener fails with, the person who asked still hears a sentence.
  // With extendedErrorHandler, Bolt passes the request's body and context too (Bolt does not export that type).
  app.error((async ({ error, body, context: requestContext }: ErrorArgs) => {
    const reference = randomUUID().slice(0, 8);
    if (
      (error as { code?: unknown }).code === ErrorCode.AuthorizationError &&
      !causesOf(error).some((cause) => cause instanceof UnreadableSecretError)
    ) {
      // No installation for this workspace (uninstalled, or never installed): no token to answer with
      // but the response_url, which needs none.
      logger.warn({ reference, teamId: teamOf(body) }, 'a request came from a workspace without Tenderbot');
      await tellPerson(
        app.client,
        respondableOnly(body),
        failureMessage(NOT_INSTALLED, reference, null),
      ).catch(() => undefined);
      return;
    }
    // An installation this ENCRYPTION_KEY cannot read is the app's fault, not an uninstall: said as a failure.
    const original =
      causesOf(error).find((cause) => cause instanceof UnreadableSecretError) ??
      (error as { original?: unknown }).original ??
      error;
    logger.error({ err: original, reference }, 'unhandled error in a listener');
    const { sentence } = describeFailure(original);
    await tellPerson(
      app.client,
      body as unknown,
      failureMessage(sentence, reference, null),
      requestContext?.botToken,
    ).catch((tellError: unknown) =>
      logger.error({ err: tellError, reference }, 'could not tell the person about a failure'),
    );
  }) as unknown as Parameters<typeof app.error>[0]);

  return {
    app,
    install,
    scheduler,
    answers,
    start: async () => {
      if (answers) {
        await app.start();
        return null;
      }
      if (!receiver) {
        await app.start();
        scheduler.start();
        return null;
      }
      // Said once in the log: a workspace whose stored key this ENCRYPTION_KEY cannot read.
      await context.clients.reportUnreadableKeys(logger);
      await install?.reportUnreadable(logger);
      await app.start(config.PORT);
      scheduler.start();
      return httpReceiver?.port ?? config.PORT;
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

/** What Bolt's extended error handler is given. */
interface ErrorArgs {
  error: Error;
  body?: unknown;
  context?: { botToken?: string };
}

const GAVE_UP = mrkdwn`Tenderbot could not answer this command: the part of Tenderbot answering it stopped several times. Type it again, and if it fails again, tell whoever runs Tenderbot.`;

const NOT_INSTALLED = mrkdwn`Tenderbot is not installed in this workspace any more. Someone who manages apps here can add it again.`;

function teamOf(body: unknown): string | null {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const team = fields.team as { id?: unknown } | undefined;
  const id = fields.team_id ?? team?.id;
  return typeof id === 'string' ? id : null;
}

/** An error and what it wraps (Bolt's and the OAuth package's `original`, or `cause`), outermost first. */
function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < 5) {
    chain.push(current);
    const wrapped = current as { original?: unknown; cause?: unknown };
    current = wrapped.original ?? wrapped.cause;
  }
  return chain;
}

/** Only the response_url of a body: without a token, a direct message cannot be sent. */
function respondableOnly(body: unknown): unknown {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  return { response_url: fields.response_url };
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
