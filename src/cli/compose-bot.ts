import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { botTokenAuthorization } from '../app/adapters/bot-token-authorize.ts';
import { scheduledSlack } from '../app/adapters/scheduled-slack.ts';
import { slackFetch } from '../app/adapters/slack-fetch.ts';
import { SlackUsers } from '../app/adapters/slack-users.ts';
import { tellPerson } from '../app/adapters/tell-person.ts';
import { parseAllowedServiceUrls, WorkspaceClients } from '../app/adapters/workspace-clients.ts';
import { createBotApp, respondableOnly, teamOf } from '../app/bot-app.ts';
import { type BotConfig, oauthSettings } from '../app/config.ts';
import { PgBossQueue } from '../app/delivery/pg-boss-queue.ts';
import { Scheduler, type SchedulerOptions } from '../app/delivery/scheduler.ts';
import { InstallFlow } from '../app/features/install/install-flow.ts';
import { BotMetrics } from '../app/metrics/bot-metrics.ts';
import { GuardedReceiver } from '../app/receiver/guarded-receiver.ts';
import type { HandOffCommand } from '../app/receiver/hand-off.ts';
import { QueuedCommandsReceiver } from '../app/receiver/queued-commands-receiver.ts';
import { KeyCipher } from '../app/security/key-cipher.ts';
import { isSubcommand } from '../app/shared/commands/subcommands.ts';
import type { FeatureContext } from '../app/shared/feature-context.ts';
import { failureMessage } from '../app/shared/views/messages.ts';
import { mrkdwn } from '../app/shared/views/mrkdwn.ts';
import type { BotStore } from '../app/storage/bot-store.ts';

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
  handOffCommand?: HandOffCommand;
  /**
   * This process is an answer worker: no HTTP, no scheduler; it answers the commands the
   * receiver's process gives it (`bot.answers.take`) and says `onDone` for each.
   */
  answerWorker?: { onDone: (id: string) => void };
  /**
   * The app's metrics, served at GET /metrics (a registry of this copy's own). One is made when
   * not given; the CLI gives the one its answer workers count into too.
   */
  metrics?: BotMetrics;
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
  /** What GET /metrics shows (an answer worker's is never served: it has no HTTP). */
  metrics: BotMetrics;
  /** Starts listening (HTTP mode: on PORT; 0 picks a free one) and resolves with the port. */
  start(): Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * The composition root of the Slack app: builds every part (the HTTP or answer-worker receiver,
 * the install flow, the service clients, Slack's users, the subscriptions' scheduler and its
 * queue) and gives them to the thin app (src/cli/compose-bot.ts), which registers the features.
 */
export function composeBot(options: BotAppOptions): BotApp {
  const { config, store, logger } = options;
  // An answer worker's process keeps no process metrics: nothing scrapes it.
  const metrics =
    options.metrics ??
    new BotMetrics({
      processMetrics: !options.answerWorker,
      ...(config.METRICS_COPY ? { copy: config.METRICS_COPY } : {}),
    });
  const rateLimited = (method: string) => metrics.slackRateLimited(method);
  // Bolt's answers at a response_url and the Web API calls go over a keep-alive undici pool rather
  // than the built-in fetch's streams (about a quarter of a /tender help's CPU; perf's notes).
  const appFetch = slackFetch(rateLimited);
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
          await tellPerson(slackClient, respondableOnly(body), failureMessage(GAVE_UP, reference, null));
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
          ...(config.HOST ? { host: config.HOST } : {}),
          store,
          logger,
          metrics,
          ...(install ? { install } : {}),
          // `/tender connect` stays here: it opens a modal with a trigger_id that lasts 3 s.
          ...(handOffCommand
            ? {
                handOff: (body, request) =>
                  isSubcommand(typeof body.text === 'string' ? body.text : '', 'connect')
                    ? Promise.resolve('declined')
                    : handOffCommand(body, request),
              }
            : {}),
        });
  const receiver = answers ?? httpReceiver;
  // The Web API client for what runs outside Bolt's listeners (people's roles, a given-up answer).
  const slackClient = new WebClient(install ? undefined : config.SLACK_BOT_TOKEN, clientOptions);
  // One workspace's token is authorized as many workspaces' are, by a function of ours: Bolt's own
  // handling of `token` crashed the process when Slack was out of reach as it started.
  const singleToken = install ? null : botTokenAuthorization(slackClient, config.SLACK_BOT_TOKEN ?? '');
  const credentials = { authorize: singleToken?.authorize ?? (install as InstallFlow).authorize };
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
    users: new SlackUsers(slackClient, undefined, install ? tokenFor : null),
    clients: new WorkspaceClients(store, cipher, {
      serviceUrl: config.PROCUREMENT_API_URL,
      // Never a default key when anyone may install (the configuration refuses it too).
      apiKey: install ? null : (config.PROCUREMENT_API_KEY ?? null),
      timeoutMs: 10_000,
      // Other service addresses an admin may connect the workspace's key to (none by default).
      allowedServiceUrls: parseAllowedServiceUrls(config.PROCUREMENT_API_URLS_ALLOWED),
      observeCall: (endpoint, seconds, failed) => metrics.serviceCall(endpoint, seconds, failed),
    }),
  };
  // Scheduled posts go through a lean client of their own: a 429 comes back at once (no retry, no
  // queue paused for every channel) and the scheduler waits Retry-After for that delivery alone.
  const schedulerSlack = scheduledSlack({
    ...(install ? { tokenFor } : { token: config.SLACK_BOT_TOKEN }),
    apiUrl: config.SLACK_API_URL,
    timeoutMs: 10_000,
    onRateLimited: rateLimited,
  });
  const scheduler = new Scheduler({
    store,
    slack: schedulerSlack.slack,
    clients: context.clients,
    logger: logger.child({ part: 'scheduler' }),
    clock: context.clock,
    metrics,
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
  // Counted at each scrape, from the store every copy shares.
  metrics.watchDueDeliveries(async (limit) => (await store.openDeliveryIds(context.clock(), limit)).length);
  if (handOffCommand) metrics.watchAnswers({ queued: () => store.queuedCommandCount() });
  const app = createBotApp({
    credentials,
    ...(install ? {} : { botToken: config.SLACK_BOT_TOKEN }),
    ...(receiver ? { receiver } : { appToken: config.SLACK_APP_TOKEN }),
    clientOptions,
    respondAt: appFetch.respondAt,
    logger,
    context,
    install,
  });

  return {
    app,
    install,
    scheduler,
    answers,
    metrics,
    start: async () => {
      // Slack is asked whose the token is now, not at the first request (its 3 s), and a token it
      // refuses is said in the log at once; neither waits for Slack nor stops the start.
      singleToken?.checkAtStart(logger);
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

const GAVE_UP = mrkdwn`Tenderbot could not answer this command: the part of Tenderbot answering it stopped several times. Type it again, and if it fails again, tell whoever runs Tenderbot.`;
