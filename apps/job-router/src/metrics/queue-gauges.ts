import { JobKeys } from '@runplane/jobs';
import { type BoundedLabel, type MetricsRegistry, OTHER_LABEL } from '@runplane/observability';
import type { Redis } from '@runplane/queue';

/** One endpoint's queue as a scrape reads it. */
interface QueueReading {
  depth: number;
  /** Seconds the oldest queued job has waited; 0 for an empty queue. */
  oldestAgeSeconds: number;
}

/**
 * Queue depth and the age of the oldest queued job per endpoint, read from the engine's keys at scrape time (every
 * replica reads the same Redis, so every replica reports the same values: aggregate with `max`, not `sum`). Endpoints
 * with queued jobs take a bounded label (see BoundedLabel); the queues of the rest are summed, and their oldest job
 * taken, under `endpoint="other"`. Endpoints that hold a label with an empty queue report 0.
 */
export class QueueGauges {
  private readonly keys = JobKeys.forPrefixedClient();
  private reading: Promise<Map<string, QueueReading>> | undefined;

  constructor(
    /** The app's client WITH the deployment's keyPrefix. */
    private readonly redis: Redis,
    private readonly endpoints: BoundedLabel,
    private readonly now: () => number = Date.now,
  ) {}

  /** Registers `runplane_queue_depth` and `runplane_queue_oldest_job_age_seconds` on `metrics`. */
  register(metrics: MetricsRegistry): void {
    metrics.collectedGauge(
      'runplane_queue_depth',
      'Jobs waiting in the endpoint queue',
      ['endpoint'],
      async (gauge) => {
        for (const [endpoint, reading] of await this.read()) gauge.set({ endpoint }, reading.depth);
      },
    );
    metrics.collectedGauge(
      'runplane_queue_oldest_job_age_seconds',
      'How long the oldest job in the endpoint queue has waited',
      ['endpoint'],
      async (gauge) => {
        for (const [endpoint, reading] of await this.read()) gauge.set({ endpoint }, reading.oldestAgeSeconds);
      },
    );
  }

  /** One Redis read per scrape, shared by both gauges (prom-client collects them concurrently). */
  private read(): Promise<Map<string, QueueReading>> {
    this.reading ??= this.readQueues().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async readQueues(): Promise<Map<string, QueueReading>> {
    const ids = await this.redis.smembers(this.keys.global('endpoints'));
    const pipeline = this.redis.pipeline();
    for (const id of ids)
      pipeline.zrange(this.keys.endpoint(id, 'queued'), '0', '0', 'WITHSCORES').zcard(this.keys.endpoint(id, 'queued'));
    const replies = ((await pipeline.exec()) ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    const readings = new Map<string, QueueReading>(
      this.endpoints.held().map((id) => [id, { depth: 0, oldestAgeSeconds: 0 }]),
    );
    ids.forEach((id, index) => {
      const depth = Number(replies[index * 2 + 1]);
      if (depth === 0) return;
      const head = replies[index * 2] as string[];
      const age = Math.max(0, (this.now() - Number(head[1])) / 1000);
      const label = this.endpoints.of(id);
      const sum = readings.get(label) ?? { depth: 0, oldestAgeSeconds: 0 };
      readings.set(label, { depth: sum.depth + depth, oldestAgeSeconds: Math.max(sum.oldestAgeSeconds, age) });
    });
    if (!readings.has(OTHER_LABEL)) readings.set(OTHER_LABEL, { depth: 0, oldestAgeSeconds: 0 });
    return readings;
  }
}
