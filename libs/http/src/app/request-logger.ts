import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1] & object;
/** Runplane's request loggers are pino loggers, which can tell whether a level is on. */
type PinoLike = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogCall = (...args: unknown[]) => void;

/**
 * A request's logger that becomes a real child logger only when the request logs something. Most requests log
 * nothing at the usual levels, and a pino child costs a serialisation and redaction pass over its bindings on
 * every request (about 10 µs, a tenth of a hot route's budget).
 */
class LazyChildLogger {
  private made: PinoLike | undefined;

  constructor(
    private readonly parent: PinoLike,
    private readonly bindings: Bindings,
    private readonly options: ChildOptions,
  ) {}

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.log('error', args);
  }
  warn(...args: unknown[]): void {
    this.log('warn', args);
  }
  info(...args: unknown[]): void {
    this.log('info', args);
  }
  debug(...args: unknown[]): void {
    this.log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.log('trace', args);
  }
  silent(): void {}

  isLevelEnabled(level: string): boolean {
    return (this.made ?? this.parent).isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  private log(level: Level, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.logger()[level] as LogCall)(...args);
  }

  private logger(): PinoLike {
    this.made ??= this.parent.child(this.bindings, this.options) as PinoLike;
    return this.made;
  }
}

/** Fastify `childLoggerFactory`: request loggers made on first use (a route-level log level makes one at once). */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildOptions,
): FastifyBaseLogger {
  if (options.level !== undefined) return logger.child(bindings, options);
  return new LazyChildLogger(logger as PinoLike, bindings, options) as unknown as FastifyBaseLogger;
}
