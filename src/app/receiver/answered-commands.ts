import type { Logger } from 'pino';

/**
 * Commands the workers reported answered, removed from the store together, once per turn of the
 * event loop (one write for many answers). Until removed they are still stored, so their lease
 * is renewed with the held ones': a lease that ended first would have them answered again.
 */
export class AnsweredCommands {
  private waiting: string[] = [];
  /** Being removed by the write under way. */
  private removing: readonly string[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly remove: (ids: readonly string[]) => Promise<void>,
    private readonly logger: Logger,
  ) {}

  /** Answered and still stored. */
  get stored(): string[] {
    return [...this.waiting, ...this.removing];
  }

  add(id: string): void {
    this.waiting.push(id);
    this.schedule();
  }

  /** Resolves once every command reported so far is removed (or its removal failed and was said). */
  async flush(): Promise<void> {
    while (this.writing || this.waiting.length > 0) {
      if (!this.writing) this.schedule();
      await this.writing;
    }
  }

  private schedule(): void {
    if (this.writing) return;
    this.writing = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const ids = this.waiting;
      this.waiting = [];
      this.removing = ids;
      try {
        await this.remove(ids);
      } catch (error) {
        // They stay stored and are answered again when their lease ends: said, not hidden.
        this.logger.error(
          { reason: (error as Error).message, commands: ids.length },
          'could not remove answered commands from the queue; they will be answered again',
        );
      } finally {
        this.removing = [];
        this.writing = null;
        if (this.waiting.length > 0) this.schedule();
      }
    });
  }
}
