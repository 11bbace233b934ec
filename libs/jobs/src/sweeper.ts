import type { Redis } from '@runplane/queue';
import type { JobKeys } from './protocol';
import { pairs } from './scripts';
import { SWEEP_SCRIPTS } from './sweep-scripts';

/** What the sweeper needs from its engine. */
export interface SweeperOptions {
  heartbeatIntervalMs: number;
  maxRetries: number;
  batch: number;
  /** A job went back to its queue (lost worker): wake takers. */
  requeued(endpointId: string, jobId: string): Promise<void>;
  /** A job reached a terminal state in a sweep (timeout, retries exhausted): its webhook. */
  finished(endpointId: string, jobId: string): Promise<void>;
  /** Queues the webhooks a process left in the outbox (it died between a terminal state and the relay). */
  relayWebhooks(now: number): Promise<void>;
}

/**
 * Applies the time rules at a given instant: execution timeouts, ttl and retention, lost workers, stops a worker does
 * not heed, webhook outbox.
 */
export class Sweeper {
  constructor(
    private readonly redis: Redis,
    private readonly keys: JobKeys,
    private readonly options: SweeperOptions,
  ) {}

  get heartbeatIntervalMs(): number {
    return this.options.heartbeatIntervalMs;
  }

  /** One pass of every rule; each handles at most `batch` due items, the next pass takes the rest. */
  async sweep(now: number): Promise<void> {
    const base = this.keys.base;
    const { batch: limit, maxRetries, heartbeatIntervalMs } = this.options;
    const timedOut = pairs(await SWEEP_SCRIPTS.timeouts.run(this.redis, { base, now, limit }));
    await Promise.all(timedOut.map(({ endpointId, id }) => this.options.finished(endpointId, id)));

    await SWEEP_SCRIPTS.expired.run(this.redis, { base, now, limit });

    const cutoff = now - 3 * heartbeatIntervalMs;
    await this.settle(await SWEEP_SCRIPTS.lostWorkers.run(this.redis, { base, now, cutoff, maxRetries, limit }));
    // A worker with the job-stop channel asks for its stop requests within moments (its poll is parked, or comes back
    // within a second); one that has not in 3 heartbeat intervals has no such channel, and is recycled.
    await SWEEP_SCRIPTS.unheededStops.run(this.redis, { base, cutoff, limit });
    await this.options.relayWebhooks(now);
  }

  /**
   * Takes back the jobs a live worker was given more than two heartbeat intervals ago but does not report
   * holding (the answer to its take never reached it), re-queueing them like a lost worker's.
   */
  async reconcile(endpointId: string, workerId: string, heldJobIds: string[], now: number): Promise<void> {
    const takenBefore = now - 2 * this.options.heartbeatIntervalMs;
    const { maxRetries } = this.options;
    const args = { base: this.keys.base, endpointId, workerId, now, takenBefore, maxRetries, heldJobIds };
    await this.settle(await SWEEP_SCRIPTS.reconcile.run(this.redis, args));
  }

  private async settle([requeued, failed]: [string[], string[]]): Promise<void> {
    await Promise.all(pairs(requeued).map(({ endpointId, id }) => this.options.requeued(endpointId, id)));
    await Promise.all(pairs(failed).map(({ endpointId, id }) => this.options.finished(endpointId, id)));
  }
}
