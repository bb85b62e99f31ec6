import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname, setPriority } from 'node:os';
import type { Logger } from 'pino';
import type { BotMetrics } from '../metrics/bot-metrics.ts';
import type { KeyCipher } from '../security/key-cipher.ts';
import type { BotStore } from '../storage/bot-store.ts';
import type { RequestToRemember } from '../storage/seen-requests.ts';
import { AnswerTimes } from './answer-times.ts';
import {
  ANSWER_WORKER_NICENESS,
  CLAIM_AT_LEAST,
  COMMAND_LEASE_MS,
  HOLD_AT_MOST_MS,
  STAYED_UP_MS,
  WORKER_CONCURRENCY,
} from './answer-worker-settings.ts';
import { AnsweredCommands } from './answered-commands.ts';
import type { HandOff } from './hand-off.ts';
import type { CommandToAnswer } from './queued-commands-receiver.ts';
import {
  PRESSURE_SAMPLE_MS,
  processesRanNs,
  ReceiverPressure,
  readThreadTimes,
  type ThreadTimes,
} from './receiver-pressure.ts';
import { commandToStore, isWorkerMessage, type WorkerMessage } from './worker-messages.ts';

export interface AnswerWorkersOptions {
  count: number;
  store: Pick<
    BotStore,
    | 'queueCommand'
    | 'claimCommands'
    | 'finishCommands'
    | 'renewCommands'
    | 'releaseCommands'
    | 'checkpointInBackground'
  >;
  logger: Logger;
  /** The script that runs `tenderbot bot`, and its arguments; each worker runs it with TENDERBOT_ROLE=answers. */
  script: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** Node's own flags for the workers (this process's by default). */
  execArgv?: string[];
  clock?: () => Date;
  /**
   * Seals a command's fields for the store (encrypted and authenticated, as every other secret
   * the bot keeps: a response_url is a capability) and opens them again.
   */
  cipher: Pick<KeyCipher, 'encrypt' | 'decrypt'>;
  /** Before a worker that ended unexpectedly is started again (doubling, up to a minute). */
  restartDelayMs?: number;
  /** How often the store is looked at for commands nobody holds (another copy's, a lease ended). */
  sweepMs?: number;
  leaseMs?: number;
  /** The receiver's thread's times (Linux's scheduler statistics by default; null: never pressed). */
  readThreadTimes?: () => ThreadTimes | null;
  /** Nanoseconds the workers have run so far (their scheduler statistics by default). */
  readWorkersRanNs?: () => number | null;
  pressureSampleMs?: number;
  holdAtMostMs?: number;
  /** The app's metrics: the commands the workers hold, and how long each took to answer. */
  metrics?: BotMetrics;
}

interface Worker {
  child: ChildProcess;
  owner: string;
  ready: boolean;
  /** When it said it was ready (ms since epoch); 0 before. */
  readyAt: number;
  /** Ids given to it and not yet reported answered. */
  held: Set<string>;
  /** The claim under way for it, if any. */
  feeding: Promise<void> | null;
  /** A command was stored after the claim under way began: claim again once it ends. */
  feedAgain: boolean;
}

/**
 * The receiver's side of ANSWER_WORKERS. It starts the worker processes (at a lower priority,
 * started again when one ends), stores each slash command the receiver hands over (claimed at once
 * for a worker with room, otherwise queued) and gives it to that worker, and removes it once the
 * worker says it is answered. It is the queue's only writer in this copy: on SQLite, workers that
 * wrote would make the acknowledgements wait on the database's lock.
 *
 * A command is handed over only while a worker is ready; otherwise the receiver's own app answers
 * it, so a worker that cannot start costs speed, never an answer. A worker that dies: what it held
 * is taken again at once (answered at least once). This copy that dies: its commands stay stored and
 * another copy, or the next start, takes them when their lease ends.
 */
export class AnswerWorkers {
  private readonly workers = new Set<Worker>();
  private stopping = false;
  /** Past the stop's drain: nothing is claimed or given any more. */
  private closed = false;
  /** Commands may be waiting in the store unclaimed (all workers were full when they came). */
  private backlog = true;
  private restartDelayMs: number;
  private readonly leaseMs: number;
  private readonly clock: () => Date;
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly answered: AnsweredCommands;
  private progress: (() => void)[] = [];
  private readonly pressure: ReceiverPressure;
  private readonly holdAtMostMs: number;
  /**
   * Since when new commands wait in the store for the receiver's sake (performance.now() ms):
   * every worker was full, busy on the CPU, while the receiver was pressed. Null while they do not.
   */
  private holdingSince: number | null = null;
  /** Ends the hold once the holds since the answers last caught up have lasted ANSWER_HOLD_SECONDS. */
  private holdTimer: NodeJS.Timeout | null = null;
  /**
   * Milliseconds answers have been held since they last caught up. Holds that a lull in the
   * requests ended add up to HOLD_AT_MOST_MS at most: a pause between bursts must neither forfeit
   * the rest of the hold (the next burst's acknowledgements would share the CPU with the last
   * burst's answers) nor start the clock again (repeated bursts would hold answers without end).
   */
  private heldMs = 0;
  private readonly answerTimes: AnswerTimes;

  constructor(private readonly options: AnswerWorkersOptions) {
    this.restartDelayMs = options.restartDelayMs ?? 1000;
    this.leaseMs = options.leaseMs ?? COMMAND_LEASE_MS;
    this.clock = options.clock ?? (() => new Date());
    this.holdAtMostMs = options.holdAtMostMs ?? HOLD_AT_MOST_MS;
    this.answerTimes = new AnswerTimes(options.metrics);
    this.answered = new AnsweredCommands((ids) => options.store.finishCommands(ids), options.logger);
    this.pressure = new ReceiverPressure(
      (pressed) => {
        if (!pressed) this.endHold('the receiver is no longer pressed for CPU; answers resume');
      },
      {
        receiver: options.readThreadTimes ?? (() => readThreadTimes()),
        workers:
          options.readWorkersRanNs ??
          (() => processesRanNs([...this.workers].map((worker) => worker.child.pid))),
      },
      options.pressureSampleMs ?? PRESSURE_SAMPLE_MS,
    );
    options.metrics?.watchAnswers({ held: () => this.inFlight() });
  }

  /**
   * Whether new commands wait in the store rather than go to a worker. They do while the answers
   * cannot keep up anyway (every worker full) and the workers, busy on the CPU, keep the receiver
   * waiting for it (ReceiverPressure): acknowledgements first, until the receiver is no longer
   * pressed, for ANSWER_HOLD_SECONDS at most. Slack allows 3 s for an acknowledgement, and a missed
   * one is an error the person sees; an answer can come a few seconds later. Held commands are
   * stored unclaimed: on PostgreSQL another copy with room may answer them.
   */
  get holding(): boolean {
    return !this.stopping && this.holdingSince !== null;
  }

  start(): void {
    // SQLite: a checkpoint's fsync must not stall the acknowledgements (a thread does it).
    this.options.store.checkpointInBackground();
    if (this.holdAtMostMs > 0) this.pressure.start();
    for (let index = 0; index < this.options.count; index++) this.spawn();
    this.sweepTimer = setInterval(() => {
      // A live worker's commands stay its own however long they take (their lease only runs out
      // when this copy is gone); then what nobody holds is claimed.
      // Answered ones not removed yet too: their lease must not end before they are.
      const workers = [...this.workers];
      const ids = [...workers.flatMap((worker) => [...worker.held]), ...this.answered.stored];
      void this.options.store
        .renewCommands(
          { owners: workers.map((worker) => worker.owner), ids },
          new Date(this.clock().getTime() + this.leaseMs),
        )
        .catch((error: Error) =>
          this.options.logger.error({ reason: error.message }, 'could not renew the workers’ leases'),
        );
      this.backlog = true;
      this.feedAll();
    }, this.options.sweepMs ?? 1000);
    this.sweepTimer.unref();
  }

  /** Every worker is (nearly) full: new commands wait if the workers are also what keeps the receiver waiting. */
  private workersFull(): void {
    const { pressure } = this;
    if (this.holdingSince !== null || this.stopping) return;
    const left = this.holdAtMostMs - this.heldMs;
    if (left <= 0 || !pressure.pressed || !pressure.workersBusy) return;
    this.holdingSince = performance.now();
    const spent = 'answers waited their longest for the receiver; they go on beside the acknowledgements';
    this.holdTimer = setTimeout(() => this.endHold(spent), left).unref();
    this.options.logger.info(
      'answers cannot keep up and the receiver is pressed for CPU: acknowledgements first, new answers wait',
    );
  }

  private endHold(why: string): void {
    if (this.holdingSince === null) return;
    this.heldMs += performance.now() - this.holdingSince;
    this.holdingSince = null;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    this.options.logger.info(why);
    this.backlog = true;
    this.feedAll();
  }

  /**
   * Stores a verified slash command for the workers, with the signed request that carried it
   * remembered in the same write: 'handed' once stored, so the receiver may acknowledge it;
   * 'replayed' when that request was seen before (nothing stored); 'declined' while no worker is
   * ready (nothing remembered: the receiver's app answers it then).
   */
  async handOff(body: Record<string, unknown>, request: RequestToRemember): Promise<HandOff> {
    if (this.stopping) return 'declined';
    let roomiest: Worker | null = null;
    for (const worker of this.workers) {
      if (worker.ready && (!roomiest || worker.held.size < roomiest.held.size)) roomiest = worker;
    }
    if (!roomiest) return 'declined';
    const now = this.clock();
    const arrivedAt = performance.now();
    const { plain, command } = commandToStore(body, now, (text) => this.options.cipher.encrypt(text));
    // Too full to be given more until it answers some (see feed): the answers are not keeping up.
    if (roomiest.held.size > WORKER_CONCURRENCY - CLAIM_AT_LEAST) this.workersFull();
    if (this.holding || roomiest.held.size >= WORKER_CONCURRENCY || this.backlog) {
      // Every worker is busy (or held back): stored for whichever has room first, oldest first.
      if (!(await this.options.store.queueCommand(command, request))) return 'replayed';
      this.answerTimes.arrived(command.id, arrivedAt);
      this.backlog = true;
      this.feedAll();
      return 'handed';
    }
    const worker = roomiest;
    worker.held.add(command.id);
    let queued = false;
    try {
      queued = await this.options.store.queueCommand(
        { ...command, owner: worker.owner, leaseUntil: new Date(now.getTime() + this.leaseMs) },
        request,
      );
    } finally {
      if (!queued) worker.held.delete(command.id);
    }
    if (!queued) return 'replayed';
    this.answerTimes.arrived(command.id, arrivedAt);
    this.give(worker, { id: command.id, body: plain, receivedAt: now.getTime(), attempts: 1 });
    return 'handed';
  }

  /**
   * No command comes in any more: the workers answer every one stored that nobody else holds,
   * then end. What a worker could not answer stays stored for another copy or the next start.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.pressure.stop();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.holdTimer) clearTimeout(this.holdTimer);
    for (;;) {
      this.backlog = true;
      await Promise.all([...this.workers].map((worker) => this.feed(worker)));
      // A claim under way when the loop began has been awaited above: its commands count now.
      if (this.inFlight() === 0) break;
      await new Promise<void>((resolve) => this.progress.push(resolve));
    }
    await this.halt('SIGTERM');
  }

  /**
   * Ends the workers now (a stop past its deadline): nothing more is claimed or given; what they
   * reported answered is removed from the store first; what they hold stays stored, for another
   * copy or the next start.
   */
  async halt(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    this.stopping = true;
    this.closed = true;
    this.pressure.stop();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.answered.flush();
    await Promise.all(
      [...this.workers].map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.child.exitCode !== null || worker.child.signalCode !== null) return resolve();
            worker.child.once('exit', () => resolve());
            worker.child.kill(signal);
          }),
      ),
    );
    await this.answered.flush();
  }

  private inFlight(): number {
    let total = 0;
    for (const worker of this.workers) total += worker.held.size;
    return total;
  }

  private spawn(): void {
    const { logger } = this.options;
    const owner = `answers-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
    let child: ChildProcess;
    try {
      child = fork(this.options.script, this.options.args, {
        env: { ...this.options.env, TENDERBOT_ROLE: 'answers', TENDERBOT_ANSWER_OWNER: owner },
        execArgv: this.options.execArgv ?? process.execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
    } catch (error) {
      logger.error({ reason: (error as Error).message }, 'could not start an answer worker; trying again');
      this.restartLater();
      return;
    }
    const worker: Worker = {
      child,
      owner,
      ready: false,
      readyAt: 0,
      held: new Set(),
      feeding: null,
      feedAgain: false,
    };
    this.workers.add(worker);
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, ANSWER_WORKER_NICENESS);
      } catch (error) {
        logger.warn({ reason: (error as Error).message }, 'could not lower an answer worker’s priority');
      }
    }
    child.on('message', (message: unknown) => {
      if (!isWorkerMessage(message)) {
        logger.warn({ owner }, 'an answer worker sent a message that is not one of its own; ignored');
        return;
      }
      if (message.kind === 'ready') {
        worker.ready = true;
        worker.readyAt = Date.now();
        logger.info({ pid: child.pid, owner }, 'an answer worker is ready');
        void this.feed(worker);
      } else if (message.kind === 'done') {
        for (const id of message.ids) {
          // Only what it was given counts (a repeated or unknown id changes nothing).
          if (worker.held.delete(id)) {
            this.answered.add(id);
            this.answerTimes.answered(id);
          }
        }
        void this.feed(worker);
        this.wakeProgress();
      }
    });
    child.on('error', (error) => logger.error({ reason: error.message }, 'an answer worker failed'));
    child.on('exit', (code, signal) => {
      this.workers.delete(worker);
      worker.ready = false;
      const held = worker.held.size;
      worker.held.clear();
      this.wakeProgress();
      if (this.closed || (this.stopping && held === 0)) return;
      logger.error(
        { pid: child.pid, code, signal, commands: held },
        held > 0
          ? 'an answer worker ended while answering; its commands are answered again'
          : 'an answer worker ended; starting another',
      );
      // What it reported answered is removed first, then what it held is free at once (rather
      // than when its leases end): answered at least once, and again only if it was mid-answer.
      this.answered
        .flush()
        .then(() => this.options.store.releaseCommands(owner))
        .then(() => {
          this.backlog = true;
          this.feedAll();
        })
        .catch((error: Error) =>
          logger.error({ reason: error.message }, 'could not release a worker’s commands'),
        );
      if (worker.readyAt > 0 && Date.now() - worker.readyAt >= STAYED_UP_MS)
        this.restartDelayMs = this.options.restartDelayMs ?? 1000;
      this.restartLater();
    });
  }

  /** Starts a worker again after the current delay, doubling it for next time (up to a minute). */
  private restartLater(): void {
    if (this.stopping) return;
    const delay = this.restartDelayMs;
    this.restartDelayMs = Math.min(60_000, delay * 2);
    setTimeout(() => {
      if (!this.stopping) this.spawn();
    }, delay).unref();
  }

  private give(worker: Worker, command: CommandToAnswer): void {
    if (!this.closed && worker.child.connected) {
      worker.child.send({ kind: 'answer', command } satisfies WorkerMessage);
      return;
    }
    // It ended between the claim and now, or the stop is past its drain: stored, for whoever
    // takes it next (its exit gives its commands back).
    worker.held.delete(command.id);
    void this.options.store.releaseCommands(worker.owner).catch(() => undefined);
  }

  private feedAll(): void {
    for (const worker of this.workers) void this.feed(worker);
  }

  /**
   * Claims stored commands for a worker with room, oldest first: a few at a time while it is busy
   * (one claim for several commands, not one each), any number once it is idle. A claim already
   * under way for it is what this resolves with.
   */
  private feed(worker: Worker): Promise<void> {
    if (worker.feeding) {
      // That claim may have read the queue before the command that calls for this was stored.
      if (this.backlog) worker.feedAgain = true;
      return worker.feeding;
    }
    if (this.closed || this.holding || !this.backlog || !worker.ready || !worker.child.connected)
      return Promise.resolve();
    const room = WORKER_CONCURRENCY - worker.held.size;
    if (room <= 0 || (worker.held.size > 0 && room < CLAIM_AT_LEAST)) return Promise.resolve();
    worker.feeding = (async () => {
      try {
        const claimed = await this.options.store.claimCommands(
          worker.owner,
          this.clock(),
          this.leaseMs,
          room,
        );
        for (const command of claimed) {
          worker.held.add(command.id);
          let body: string;
          try {
            body = this.options.cipher.decrypt(command.body);
          } catch {
            // Not sealed with this copy's keys (or damaged): nobody can answer it.
            this.options.logger.error({ command: command.id }, 'a stored command could not be read; dropped');
            worker.held.delete(command.id);
            this.answered.add(command.id);
            continue;
          }
          this.give(worker, {
            id: command.id,
            body,
            receivedAt: command.receivedAt.getTime(),
            attempts: command.attempts,
          });
        }
        if (claimed.length < room) {
          this.backlog = false;
          // The answers caught up: the next holds may last HOLD_AT_MOST_MS again.
          if (this.holdingSince === null) this.heldMs = 0;
        }
      } catch (error) {
        this.options.logger.error({ reason: (error as Error).message }, 'could not take stored commands');
      } finally {
        worker.feeding = null;
        if (worker.feedAgain) {
          // What was stored meanwhile may be waiting, whatever this claim found.
          worker.feedAgain = false;
          this.backlog = true;
          void this.feed(worker);
        }
      }
    })();
    return worker.feeding;
  }

  private wakeProgress(): void {
    const waiting = this.progress;
    this.progress = [];
    for (const wake of waiting) wake();
  }
}
