import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { type BotConfig, ConfigError, loadBotConfig } from '../app/config.ts';
import { createLogger } from '../app/logger.ts';
import { BotMetrics } from '../app/metrics/bot-metrics.ts';
import { AnswerWorkers } from '../app/receiver/answer-workers.ts';
import type { WorkerMessage } from '../app/receiver/worker-messages.ts';
import { KeyCipher } from '../app/security/key-cipher.ts';
import type { BotStore } from '../app/storage/bot-store.ts';
import { openBotStore } from '../app/storage/open-bot-store.ts';
import { stopSignal } from '../shared/stop-signal.ts';
import { type BotApp, composeBot } from './compose-bot.ts';

/**
 * How long a graceful stop may take before the process gives up on what is left and exits 1.
 * Under the 30 s most process managers wait between SIGTERM and SIGKILL; a listener's work is
 * bounded well below it (10 s per service call, 3 s for Slack's answer).
 */
export const STOP_DEADLINE_MS = 25_000;

/**
 * `tenderbot bot`: reads the configuration once, starts the app, and on SIGTERM (or SIGINT) stops
 * gracefully: no new connections, every request already taken finished (its answers at
 * response_url and view updates too), the scheduled posts it claimed given back, then exit 0.
 */
export async function runBot(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let config: ReturnType<typeof loadBotConfig>;
  try {
    config = loadBotConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  const logger = createLogger(config.LOG_LEVEL);
  const store = openBotStore(config.DATABASE_URL);
  const workerOwner = env.TENDERBOT_ROLE === 'answers' ? env.TENDERBOT_ANSWER_OWNER : undefined;
  if (workerOwner) return runAnswerWorker(config, store, logger, workerOwner);
  // One cipher for the app's secrets and the commands it stores for its answer workers.
  const cipher = new KeyCipher(config.ENCRYPTION_KEY, config.ENCRYPTION_KEY_PREVIOUS);
  // One registry for this copy and its answer workers, so the workers' commands are counted too.
  const metrics = new BotMetrics(config.METRICS_COPY ? { copy: config.METRICS_COPY } : {});
  // ANSWER_WORKERS: processes beside this one answer the slash commands this one acknowledges.
  const answerWorkers =
    config.ANSWER_WORKERS > 0
      ? new AnswerWorkers({
          count: config.ANSWER_WORKERS,
          store,
          logger: logger.child({ part: 'answer-workers' }),
          script: process.argv[1] ?? '',
          args: ['bot'],
          env,
          leaseMs: config.ANSWER_LEASE_SECONDS * 1000,
          holdAtMostMs: config.ANSWER_HOLD_SECONDS * 1000,
          cipher,
          metrics,
        })
      : null;
  const bot = composeBot({
    config,
    store,
    logger,
    cipher,
    metrics,
    ...(answerWorkers ? { handOffCommand: (body, request) => answerWorkers.handOff(body, request) } : {}),
  });
  const work = trackRequests(bot.app);
  const stopped = stopSignal();
  const port = await bot.start();
  answerWorkers?.start();
  // The scheduler's owner is the name this copy's leases on channel posts carry in the database.
  logger.info(
    {
      port,
      mode: config.SLACK_APP_TOKEN ? 'socket' : 'http',
      owner: bot.scheduler.owner,
      answerWorkers: config.ANSWER_WORKERS,
    },
    'tenderbot is running',
  );
  const signal = await stopped;
  const finished = await stopGracefully(bot, work, logger, signal, STOP_DEADLINE_MS, answerWorkers);
  await store.close();
  logger.info({ served: work.served }, finished ? 'stopped' : 'stopped before everything finished');
  return finished ? 0 : 1;
}

/**
 * An answer worker (started by the receiver's process with TENDERBOT_ROLE=answers): answers the
 * commands that process gives it, until it is told to stop (SIGTERM) or that process is gone.
 * SIGINT is left to the receiver's process (a terminal sends it to both): it stops this one after
 * the queue is answered.
 */
async function runAnswerWorker(
  config: BotConfig,
  store: BotStore,
  logger: Logger,
  owner: string,
): Promise<number> {
  const workerLogger = logger.child({ part: 'answers', owner });
  const tell = (message: WorkerMessage) => {
    if (process.connected) process.send?.(message);
  };
  // Answered commands are reported together, once per turn of the event loop; those answered
  // while the receiver's process was gone are removed from the store here instead.
  let done: string[] = [];
  const unreported: string[] = [];
  const report = () => {
    const ids = done;
    done = [];
    if (process.connected) tell({ kind: 'done', ids });
    else unreported.push(...ids);
  };
  const bot = composeBot({
    config,
    store,
    logger: workerLogger,
    answerWorker: {
      onDone: (id) => {
        if (done.push(id) === 1) setImmediate(report);
      },
    },
  });
  const answers = bot.answers;
  if (!answers) throw new Error('an answer worker without its receiver');
  const stopped = new Promise<string>((resolve) => {
    process.on('SIGINT', () => undefined);
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('disconnect', () => resolve('disconnect'));
  });
  process.on('message', (message: WorkerMessage) => {
    if (message.kind === 'answer') answers.take(message.command);
  });
  await bot.start();
  // The receiver's process may have gone while this one started (its 'disconnect' came first).
  if (!process.connected) process.emit('disconnect');
  tell({ kind: 'ready' });
  const signal = await stopped;
  workerLogger.info({ signal }, 'answer worker stopping once its commands are answered');
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    answers.idle().then(() => true),
    new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), STOP_DEADLINE_MS);
    }),
  ]);
  clearTimeout(timer);
  if (done.length > 0) report();
  if (unreported.length > 0) await store.finishCommands(unreported).catch(() => undefined);
  await bot.stop();
  await store.close();
  workerLogger.info(
    { served: answers.served },
    finished ? 'answer worker stopped' : 'answer worker stopped before everything finished',
  );
  if (process.connected) process.disconnect();
  return finished ? 0 : 1;
}

/** The requests the app is working on, counted where the receiver hands them to Bolt. */
export interface RequestWork {
  /** Requests being handled now (acknowledged or not: a listener's work goes on after its ack). */
  readonly inFlight: number;
  /** Requests handled since the start. */
  readonly served: number;
  /** Resolves once no request is being handled. */
  idle(): Promise<void>;
}

/**
 * Counts the requests Bolt is handling. `App.processEvent` is what every receiver calls per
 * request, and it resolves only once the listeners have finished, after their `ack` (a search's
 * answer at its response_url, a slow comment's modal update): closing the HTTP server waits only
 * for the acknowledgements, which is not enough before the clients are closed.
 */
export function trackRequests(app: App): RequestWork {
  const processEvent = app.processEvent.bind(app);
  let inFlight = 0;
  let served = 0;
  let waiters: (() => void)[] = [];
  app.processEvent = async (event) => {
    inFlight++;
    try {
      return await processEvent(event);
    } finally {
      inFlight--;
      served++;
      if (inFlight === 0) {
        const ready = waiters;
        waiters = [];
        for (const wake of ready) wake();
      }
    }
  };
  return {
    get inFlight() {
      return inFlight;
    },
    get served() {
      return served;
    },
    idle: () => (inFlight === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
  };
}

/**
 * The graceful stop, in order: the scheduler stops claiming and gives back what it claimed but has
 * not started posting (its posts under way finish), while the HTTP server stops listening and
 * waits for its open connections (a request already sent on one is served); then the requests'
 * remaining work finishes; then the app's clients are closed. False when `deadlineMs` passed first.
 */
export async function stopGracefully(
  bot: BotApp,
  work: RequestWork,
  logger: Logger,
  signal: string,
  deadlineMs: number,
  answerWorkers: Pick<AnswerWorkers, 'stop' | 'halt'> | null = null,
): Promise<boolean> {
  logger.info({ signal, inFlight: work.inFlight }, 'stopping: no new requests; finishing those under way');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), deadlineMs);
  });
  const drained = (async () => {
    await Promise.all([bot.scheduler.stop(), bot.app.stop()]);
    await work.idle();
    // No command comes in any more: the workers answer what is queued, then end.
    await answerWorkers?.stop();
    return true as const;
  })();
  const finished = await Promise.race([drained, deadline]);
  clearTimeout(timer);
  if (!finished) {
    logger.warn({ inFlight: work.inFlight }, 'the stop took too long; closing anyway');
    // What the workers reported answered is removed before the store closes; what they still
    // hold stays stored for another copy or the next start.
    await answerWorkers?.halt();
  }
  await bot.stop();
  return finished;
}
