import type { Redis } from '@runplane/queue';
import { SCRIPTS } from './engine-scripts';
import { JobKeys } from './protocol';

/** How long a retired worker's mark is kept: far longer than a removed worker's process can outlive its removal. */
const RETIRED_MARK_MS = 24 * 60 * 60 * 1000;

/**
 * Retires the workers the scheduler removes, in the job engine's keys: from then on no job is claimed for them, on
 * any job-router replica, even by a take that was parked before the removal or comes before its token is refused.
 * An idle worker is retired only if it still holds no job, in one atomic step: a worker that took a job since the
 * scheduler looked stays. A retired worker is no live worker for /health from then on, even while its process, asked
 * to stop, still pings.
 */
export class WorkerRetirement {
  private readonly keys: JobKeys;

  /** `redis` is a client WITHOUT keyPrefix; `prefix` the deployment's, as the engine uses it. */
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = JobKeys.ofPrefix(prefix);
  }

  /** Retires an idle worker, removed at `at` (ms since the epoch); false (nothing changed) when it holds a job. */
  async retireIdle(endpointId: string, workerId: string, at = Date.now()): Promise<boolean> {
    return (await this.run(endpointId, workerId, true, at)) === 1;
  }

  /**
   * Retires a worker whatever it holds (it died, or asked to be recycled), removed at `at`; its jobs are re-queued
   * once it is lost.
   */
  async retire(endpointId: string, workerId: string, at = Date.now()): Promise<void> {
    await this.run(endpointId, workerId, false, at);
  }

  /** When the worker was retired (ms since the epoch), or null when it was not (or so long ago the mark is gone). */
  async retiredAt(endpointId: string, workerId: string): Promise<number | null> {
    const value = await this.redis.get(this.keys.retired(endpointId, workerId));
    return value === null ? null : Number(value);
  }

  /** When each of `workerIds` that is retired was (ms since the epoch); those not retired are left out. */
  async retiredAmong(endpointId: string, workerIds: readonly string[]): Promise<Map<string, number>> {
    const retired = new Map<string, number>();
    if (workerIds.length === 0) return retired;
    const values = await this.redis.mget(workerIds.map((workerId) => this.keys.retired(endpointId, workerId)));
    values.forEach((value, index) => {
      const workerId = workerIds[index];
      if (value !== null && workerId !== undefined) retired.set(workerId, Number(value));
    });
    return retired;
  }

  private run(endpointId: string, workerId: string, onlyIfIdle: boolean, at: number): Promise<number> {
    const base = this.keys.base;
    return SCRIPTS.retire.run(this.redis, { base, endpointId, workerId, onlyIfIdle, ttlMs: RETIRED_MARK_MS, at });
  }
}
