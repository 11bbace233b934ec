/** Exponential backoff settings for restarting a failed watch. */
export interface BackoffOptions {
  /** First delay after a failure. */
  initialMs: number;
  /** Upper bound of any delay. */
  maxMs: number;
  /** Growth per consecutive failure. */
  factor: number;
  /** A run that lasted at least this long counts as healthy: the next failure starts from initialMs again. */
  healthyAfterMs: number;
}

/** Defaults: 0.5 s doubling up to 30 s, reset after a minute of healthy running. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, factor: 2, healthyAfterMs: 60_000 };

/** Delays of consecutive failures: initial, initial*factor, ... capped at max. */
export class ExponentialBackoff {
  private failures = 0;

  constructor(private readonly options: BackoffOptions = DEFAULT_BACKOFF) {
    if (!(options.initialMs > 0) || options.maxMs < options.initialMs || options.factor < 1) {
      throw new RangeError('Backoff needs initialMs > 0, maxMs >= initialMs and factor >= 1');
    }
  }

  /** Delay before the next attempt; each call counts one more failure. */
  next(): number {
    const delay = Math.min(this.options.initialMs * this.options.factor ** this.failures, this.options.maxMs);
    this.failures += 1;
    return delay;
  }

  /** Forget past failures. */
  reset(): void {
    this.failures = 0;
  }

  /** Consecutive failures counted since the last reset. */
  get attempts(): number {
    return this.failures;
  }
}
