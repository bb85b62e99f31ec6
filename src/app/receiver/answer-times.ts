import type { BotMetrics } from '../metrics/bot-metrics.ts';
import { TIMED_AT_MOST } from './answer-worker-settings.ts';

/**
 * When each command this copy handed to its answer workers arrived, until a worker says it is
 * answered: the command answer histogram. Bounded (TIMED_AT_MOST): past it a command is answered,
 * not timed; without metrics nothing is kept.
 */
export class AnswerTimes {
  private readonly arrivedAt = new Map<string, number>();

  constructor(private readonly metrics: BotMetrics | undefined) {}

  /** A command handed off at `arrivedAt` (performance.now() ms). */
  arrived(id: string, arrivedAt: number): void {
    if (this.metrics && this.arrivedAt.size < TIMED_AT_MOST) this.arrivedAt.set(id, arrivedAt);
  }

  /** A worker answered it: its latency is observed (once; unknown ids change nothing). */
  answered(id: string): void {
    const arrivedAt = this.arrivedAt.get(id);
    if (arrivedAt === undefined) return;
    this.arrivedAt.delete(id);
    this.metrics?.answered('command', arrivedAt);
  }
}
