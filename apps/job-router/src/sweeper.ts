import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { JobEngine } from '@runplane/jobs';
import { type Redis, shutdownWithRedis } from '@runplane/queue';
import { SerialInterval } from './serial-interval';
import { JOB_ENGINE, QUEUE_ORDERED_REDIS } from './tokens';

/** Injection token for the sweep interval (ms; 0 = never). */
export const SWEEP_INTERVAL_MS = Symbol('SWEEP_INTERVAL_MS');

/** Injection token for where a failed sweep is reported. */
export const SWEEP_ERROR_SINK = Symbol('SWEEP_ERROR_SINK');

/**
 * Runs the engine's time-based rules (ttl, retention, execution timeouts, lost workers) on an interval, one sweep
 * at a time, and closes the engine, then its Redis client, before the app's connections go away.
 */
@Injectable()
export class EngineSweeper implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly passes: SerialInterval;

  constructor(
    @Inject(JOB_ENGINE) private readonly engine: JobEngine,
    @Inject(QUEUE_ORDERED_REDIS) private readonly redis: Redis,
    @Inject(SWEEP_INTERVAL_MS) private readonly intervalMs: number,
    @Inject(SWEEP_ERROR_SINK) onError: (error: unknown) => void,
  ) {
    this.passes = new SerialInterval(() => engine.sweep(), onError);
  }

  onApplicationBootstrap(): void {
    this.passes.start(this.intervalMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    // A sweep or a wake-up in flight ends (fails at once when Redis is gone) before the engine closes.
    await shutdownWithRedis({
      redis: this.redis,
      timer: this.passes.stop(),
      drain: async () => {
        await this.passes.settled();
        await this.engine.close();
      },
    });
  }
}
