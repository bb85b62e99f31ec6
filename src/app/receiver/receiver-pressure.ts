import { readFileSync } from 'node:fs';

/** How often the receiver's thread is looked at. */
export const PRESSURE_SAMPLE_MS = 250;
/** Busy: the receiver's thread ran at least this share of the time (a third of a core). */
export const BUSY_SHARE = 0.3;
/** Pressed: busy, and it waited for a CPU, held by other processes, at least this share of the time. */
export const WAITING_SHARE = 0.05;

/** Nanoseconds the receiver's event-loop thread has run, and waited to run, so far. */
export interface ThreadTimes {
  ranNs: number;
  waitedNs: number;
}

/**
 * The event loop's thread's times from Linux's scheduler statistics (`/proc/self/schedstat`:
 * ran, waited on a run queue, slices); null where there are none (another system, or a kernel
 * without them), and then the receiver is never called pressed.
 */
export function readThreadTimes(): ThreadTimes | null {
  try {
    const [ran, waited] = readFileSync('/proc/self/schedstat', 'utf8').split(' ').map(Number);
    return Number.isFinite(ran) && Number.isFinite(waited)
      ? { ranNs: ran ?? 0, waitedNs: waited ?? 0 }
      : null;
  } catch {
    return null;
  }
}

/**
 * Whether the receiver is pressed for CPU: busy (its thread ran a third of the time or more) and
 * kept waiting by other processes on the machine (5% of the time or more). AnswerWorkers then holds
 * new answers back if the workers cannot keep up anyway, since the workers are those other
 * processes on a small machine: Slack allows 3 s for an acknowledgement and none is ever given
 * again, while an answer can come later. Once pressed, it stays so while the receiver is busy
 * (with the workers held back, nothing keeps it waiting): it ends when the requests slow down. On a
 * machine with spare cores the receiver does not wait, so it is never pressed.
 */
export class ReceiverPressure {
  private last: ThreadTimes | null = null;
  private lastAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private pressedNow = false;

  constructor(
    /** Told each time the receiver becomes pressed (true) or stops being pressed (false). */
    private readonly onChange: (pressed: boolean) => void,
    private readonly read: () => ThreadTimes | null = readThreadTimes,
    private readonly sampleMs = PRESSURE_SAMPLE_MS,
    /** Milliseconds, for the windows' lengths (a late timer makes a longer window). */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get pressed(): boolean {
    return this.pressedNow;
  }

  start(): void {
    this.last = this.read();
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

  /** One look at the thread's times since the last (the timer's work; tests call it directly). */
  sample(): void {
    const now = this.read();
    const at = this.clock();
    const last = this.last;
    const windowNs = (at - this.lastAt) * 1e6;
    this.last = now;
    this.lastAt = at;
    if (!now || !last || windowNs <= 0) return;
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
