import type { App, Receiver } from '@slack/bolt';
import type { Logger } from 'pino';

/** A command given to an answer worker: as the receiver stored it, with its attempts so far. */
export interface CommandToAnswer {
  id: string;
  /** The Slack command's fields as JSON, as the receiver verified them. */
  body: string;
  /** Epoch milliseconds. */
  receivedAt: number;
  /** This one included. */
  attempts: number;
}

/** A command whose answering ended its worker this many times is given up (said to the person). */
export const COMMAND_ATTEMPTS = 3;
/** Slack takes answers at a response_url for 30 minutes; an older command cannot be answered. */
export const RESPONSE_URL_LIFETIME_MS = 30 * 60 * 1000;

export interface QueuedCommandsReceiverOptions {
  logger: Logger;
  clock?: () => Date;
  /** The command is answered (or given up): the supervisor removes it from the store. */
  onDone: (id: string) => void;
  /** Tells the person a command will not be answered (its response_url is in the body). */
  giveUp: (body: Record<string, unknown>) => Promise<void>;
}

/**
 * The receiver of an answer worker (ANSWER_WORKERS): instead of HTTP, it is given slash commands
 * that the HTTP receiver checked, stored and acknowledged (see AnswerWorkers), and runs each through
 * the app as if it had just arrived, its `ack` already given. It never writes the queue itself:
 * on SQLite one writer, the receiver's process, keeps the acknowledgements from waiting on a lock.
 */
export class QueuedCommandsReceiver implements Receiver {
  private app: App | null = null;
  private readonly clock: () => Date;
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  private answered = 0;

  constructor(private readonly options: QueuedCommandsReceiverOptions) {
    this.clock = options.clock ?? (() => new Date());
  }

  init(app: App): void {
    this.app = app;
  }

  async start(): Promise<void> {}

  /** Nothing to close: the worker's stop waits for `idle()` first, up to its deadline. */
  async stop(): Promise<void> {}

  /** Resolves once the commands under way are answered. */
  idle(): Promise<void> {
    return this.inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Commands answered (or given up) since the start. */
  get served(): number {
    return this.answered;
  }

  /** Answers one command; `onDone` says when. */
  take(command: CommandToAnswer): void {
    this.inFlight++;
    this.answer(command)
      .catch((error) =>
        this.options.logger.error(
          { err: error, command: command.id },
          'a queued command failed outside the app',
        ),
      )
      .finally(() => {
        this.inFlight--;
        this.answered++;
        this.options.onDone(command.id);
        if (this.inFlight === 0) {
          const waiting = this.idleWaiters;
          this.idleWaiters = [];
          for (const wake of waiting) wake();
        }
      });
  }

  private async answer(command: CommandToAnswer): Promise<void> {
    const { logger } = this.options;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(command.body) as Record<string, unknown>;
    } catch {
      // Said without the text itself (the parser's message quotes it).
      logger.error({ command: command.id }, 'a queued command was not readable; dropped');
      return;
    }
    const age = this.clock().getTime() - command.receivedAt;
    if (age >= RESPONSE_URL_LIFETIME_MS) {
      // Its response_url no longer takes answers, so nobody can be told either.
      logger.warn({ command: command.id, ageMs: age }, 'a queued command was too old to answer');
      return;
    }
    if (command.attempts > COMMAND_ATTEMPTS) {
      logger.error(
        { command: command.id, attempts: command.attempts },
        'gave up on a queued command: the worker answering it ended each time',
      );
      await this.options.giveUp(body).catch(() => undefined);
      return;
    }
    if (!this.app) throw new Error('the answer worker was started before the app');
    try {
      await this.app.processEvent({
        body,
        // The HTTP receiver acknowledged it when it stored it.
        ack: async () => {},
        retryNum: undefined,
        retryReason: undefined,
        customProperties: {},
      });
    } catch (error) {
      // The app's error handler already told the person.
      logger.error({ err: error, command: command.id }, 'the app failed to answer a queued command');
    }
  }
}
