import { readFileSync } from 'node:fs';

/** How often the receiver's thread and the workers are looked at. */
export const PRESSURE_SAMPLE_MS = 250;
/** Busy: the receiver's thread ran at least this share of the time (a third of a core). */
export const BUSY_SHARE = 0.3;
/** Pressed: busy, and it waited for a CPU, held by other processes, at least this share of the time. */
export const WAITING_SHARE = 0.05;
/** The answer workers, together, ran at least this share of the time (a fifth of a core). */
export const WORKERS_BUSY_SHARE = 0.2;

/** Nanoseconds the receiver's event-loop thread has run, and waited to run, so far. */
export interface ThreadTimes {
  ranNs: number;
  waitedNs: number;
}

/**
 * A process's main thread's times from Linux's scheduler statistics (`/proc/<pid>/schedstat`:
 * ran, waited on a run queue, slices; this process's own by default); null where there are none
 * (another system, a kernel without them, a process gone).
 */
export function readThreadTimes(pid: number | 'self' = 'self'): ThreadTimes | null {
  try {
    const [ran, waited] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return Number.isFinite(ran) && Number.isFinite(waited)
      ? { ranNs: ran ?? 0, waitedNs: waited ?? 0 }
      : null;
  } catch {
    return null;
  }
}

/** Nanoseconds these processes' main threads have run (Linux); null if any cannot be read. */
export function processesRanNs(pids: readonly (number | undefined)[]): number | null {
  let total = 0;
  for (const pid of pids) {
    const times = pid === undefined ? null : readThreadTimes(pid);
    if (!times) return null;
    total += times.ranNs;
  }
  return total;
}

/** What ReceiverPressure reads at each sample. */
export interface PressureReaders {
  /** The receiver's own event-loop thread. */
  receiver: () => ThreadTimes | null;
  /**
   * Nanoseconds the answer workers have run, summed over those alive now (a sum that drops when
   * one ends counts as nothing run); null when unknown.
   */
  workers: () => number | null;
}

/**
 * Whether the receiver is pressed for CPU: busy (its thread ran a third of the time or more) and
 * kept waiting by other processes on the machine (5% of the time or more). Once pressed, it stays
 * so while the receiver is busy (the workers held back no longer keep it waiting): it ends when
 * the receiver's thread runs less, its requests having slowed (or its other work: the channel
 * posts run on the same thread). Beside it, whether the answer workers were busy on the CPU
 * themselves (a fifth of a core or more) in the last sample: AnswerWorkers holds answers back only
 * when they were, since only then are they what keeps the receiver waiting (workers waiting on a
 * slow service use next to none). On a machine with spare cores the receiver does not wait, so it
 * is never pressed; with no scheduler statistics (not Linux), never either.
 */
export class ReceiverPressure {
  private last: ThreadTimes | null = null;
  private lastWorkersNs: number | null = null;
  private lastAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private pressedNow = false;
  private workersBusyNow = false;

  constructor(
    /** Told each time the receiver becomes pressed (true) or stops being pressed (false). */
    private readonly onChange: (pressed: boolean) => void,
    private readonly readers: PressureReaders = { receiver: () => readThreadTimes(), workers: () => null },
    private readonly sampleMs = PRESSURE_SAMPLE_MS,
    /** Milliseconds, for the samples' lengths (a late timer makes a longer one). */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get pressed(): boolean {
    return this.pressedNow;
  }

  /** Whether the workers ran a fifth of a core or more in the last sample. */
  get workersBusy(): boolean {
    return this.workersBusyNow;
  }

  start(): void {
    this.last = this.readers.receiver();
    this.lastWorkersNs = this.readers.workers();
    this.lastAt = this.clock();
    if (!this.last) return;
    this.timer = setInterval(() => this.sample(), this.sampleMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.change(false);
  }

  /** One look at the times since the last (the timer's work; tests call it directly). */
  sample(): void {
    const now = this.readers.receiver();
    const workersNs = this.readers.workers();
    const at = this.clock();
    const last = this.last;
    const lastWorkersNs = this.lastWorkersNs;
    const windowNs = (at - this.lastAt) * 1e6;
    this.last = now;
    this.lastWorkersNs = workersNs;
    this.lastAt = at;
    if (!now || !last || windowNs <= 0) return;
    this.workersBusyNow =
      workersNs !== null &&
      lastWorkersNs !== null &&
      (workersNs - lastWorkersNs) / windowNs >= WORKERS_BUSY_SHARE;
    const busy = (now.ranNs - last.ranNs) / windowNs >= BUSY_SHARE;
    const waiting = (now.waitedNs - last.waitedNs) / windowNs >= WAITING_SHARE;
    this.change(this.pressedNow ? busy : busy && waiting);
  }

  private change(pressed: boolean): void {
    if (pressed === this.pressedNow) return;
    this.pressedNow = pressed;
    this.onChange(pressed);
  }
}
