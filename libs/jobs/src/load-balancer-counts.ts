import type { Redis } from '@runplane/queue';
import { JobKeys } from './protocol';

/** Requests of a load-balancing endpoint since its first one, as `/health` shows them in place of jobs. */
export interface LbRequestCounts {
  /** Requests the worker answered (whatever its status). */
  completed: number;
  /** Requests that got no answer from a worker: 502 (connection failed), 503 (no ready worker in time), timeouts. */
  failed: number;
}

/** Fields of the engine's per-endpoint stats hash (`<prefix>jobs:<ep>:stats`) beside the job counters. */
const COMPLETED_FIELD = 'lbCompleted';
const FAILED_FIELD = 'lbFailed';

/**
 * Counts the requests the job-router proxied to load-balancing endpoints (written in batches by each replica, about
 * once a second) and reads them for `/health`.
 */
export class LoadBalancerRequestCounts {
  private readonly keys: JobKeys;

  /** `redis` is a client WITHOUT keyPrefix; `prefix` the deployment's, as the job engine uses it. */
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = JobKeys.ofPrefix(prefix);
  }

  /** Adds a replica's counts of one endpoint. */
  async add(endpointId: string, counts: LbRequestCounts): Promise<void> {
    if (counts.completed === 0 && counts.failed === 0) return;
    const key = this.keys.endpoint(endpointId, 'stats');
    await this.redis
      .multi()
      .hincrby(key, COMPLETED_FIELD, counts.completed)
      .hincrby(key, FAILED_FIELD, counts.failed)
      .exec();
  }

  /** The endpoint's request counts (zero before its first request). */
  async read(endpointId: string): Promise<LbRequestCounts> {
    const [completed, failed] = await this.redis.hmget(
      this.keys.endpoint(endpointId, 'stats'),
      COMPLETED_FIELD,
      FAILED_FIELD,
    );
    return { completed: Number(completed ?? 0), failed: Number(failed ?? 0) };
  }
}
