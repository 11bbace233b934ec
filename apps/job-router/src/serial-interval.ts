/**
 * Runs a pass on an interval, one at a time: a pass slower than the interval is not stacked (the next tick finds
 * it still running and skips), and a failed one is handed to `onError` and retried by the next tick.
 */
export class SerialInterval {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pass: () => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Starts ticking every `intervalMs` (0 or less = never); the timer does not keep the process alive. */
  start(intervalMs: number): void {
    if (intervalMs <= 0) return;
    this.timer = setInterval(() => this.tick(), intervalMs);
    this.timer.unref();
  }

  /** Stops further ticks; returns the timer (for `shutdownWithRedis`) and leaves a pass in flight running. */
  stop(): NodeJS.Timeout | undefined {
    const timer = this.timer;
    this.timer = undefined;
    clearInterval(timer);
    return timer;
  }

  /** Resolves when the pass in flight, if any, has ended. */
  async settled(): Promise<void> {
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.pass()
      .then(() => undefined)
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.running = undefined;
      });
  }
}
