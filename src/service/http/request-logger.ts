import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;
type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** pino's level values: a line is written when its level's value is at least the logger's. */
const LEVEL_VALUES: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

/**
 * A request's logger, made only when the request writes a line. Fastify makes a pino child (its
 * bindings serialized) for every request and writes "incoming request" and "request completed" at
 * info; at the service's usual level (warn) neither is written, so that child was made for nothing
 * on every read. The child made on first use has the same bindings and options: every line
 * written is the same as before.
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }

  get level(): string {
    return this.made ? this.made.level : (this.options.level ?? this.parent.level);
  }

  set level(level: string) {
    this.logger.level = level;
  }

  private write(level: LevelName, args: unknown[]): void {
    const threshold = LEVEL_VALUES[this.level];
    // A line below the level is not written: nothing to make. An unknown level is left to pino.
    if (threshold !== undefined && (LEVEL_VALUES[level] as number) < threshold) return;
    const logger = this.logger;
    Reflect.apply(logger[level], logger, args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: each request's logger, made when it first writes a line. */
export const requestLoggerFactory: ChildLoggerFactory = (parent, bindings, options) =>
  // The methods take pino's arguments and pass them on unchanged (pino's LogFn is overloaded).
  new RequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
