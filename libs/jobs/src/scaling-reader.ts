import type { Redis } from '@runplane/queue';
import { type EndpointKey, JobKeys } from './protocol';

/** One worker as the engine's heartbeat view knows it. */
export interface EngineWorker {
  /** Last ping or take (ms since the epoch). */
  lastSeenAt: number;
  /** Jobs it holds now. */
  jobs: number;
}

/** What the autoscaler reads for an endpoint. */
export interface ScalingView {
  queued: number;
  /** Queued jobs that are not lowPriority. */
  scalingQueued: number;
  /** When the oldest non-lowPriority queued job was queued (ms since the epoch), or null. */
  oldestScalingQueuedAt: number | null;
  inProgress: number;
  workers: Map<string, EngineWorker>;
}

/** How far into the queue the oldest non-lowPriority job is looked for. */
const SCAN = 1_000;

/**
 * Read-only view of the engine's keys for the scheduler's autoscaler: queue depth without lowPriority jobs, the age
 * of the oldest job that may scale up, and which workers hold jobs (the heartbeat view).
 */
export class JobScalingReader {
  private readonly keys: JobKeys;

  /** `redis` is a client WITHOUT keyPrefix; `prefix` the deployment's, as the engine uses it. */
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = JobKeys.ofPrefix(prefix);
  }

  /** The engine's event stream key (`<prefix>jobs:events`), for XREAD. */
  get eventsKey(): string {
    return this.keys.events;
  }

  async view(endpointId: string): Promise<ScalingView> {
    const key = (name: EndpointKey): string => this.keys.endpoint(endpointId, name);
    const [queued, low, running, head, seen] = await Promise.all([
      this.redis.zcard(key('queued')),
      this.redis.scard(key('low')),
      this.redis.scard(key('running')),
      this.redis.zrange(key('queued'), '0', String(SCAN - 1), 'WITHSCORES'),
      this.redis.zrange(key('workers'), '0', '-1', 'WITHSCORES'),
    ]);
    return {
      queued,
      scalingQueued: Math.max(0, queued - low),
      oldestScalingQueuedAt: await this.oldestScaling(key('low'), head),
      inProgress: running,
      workers: await this.workers(endpointId, seen),
    };
  }

  private async oldestScaling(lowKey: string, head: string[]): Promise<number | null> {
    if (head.length === 0) return null;
    const ids = head.filter((_, index) => index % 2 === 0);
    const lowFlags = await this.redis.smismember(lowKey, ...ids);
    const index = lowFlags.findIndex((flag) => flag === 0);
    return index === -1 ? null : Number(head[index * 2 + 1]);
  }

  private async workers(endpointId: string, seen: string[]): Promise<Map<string, EngineWorker>> {
    const workers = new Map<string, EngineWorker>();
    if (seen.length === 0) return workers;
    const pipeline = this.redis.pipeline();
    for (let index = 0; index < seen.length; index += 2)
      pipeline.scard(this.keys.workerJobs(endpointId, seen[index] as string));
    const counts = ((await pipeline.exec()) ?? []).map(([, count]) => Number(count));
    for (let index = 0; index < seen.length; index += 2) {
      workers.set(seen[index] as string, { lastSeenAt: Number(seen[index + 1]), jobs: counts[index / 2] ?? 0 });
    }
    return workers;
  }
}
