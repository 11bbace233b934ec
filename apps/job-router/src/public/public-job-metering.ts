import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import {
  createQueue,
  createRedis,
  type Redis,
  shutdownWithRedis,
  USAGE_QUEUE,
  usageCatalog,
  usageJobId,
} from '@runplane/queue';
import type { PublicJobMeter, PublicUsagePublisher } from './public-job-meter';

/** Injection token for the PublicJobMeter. */
export const PUBLIC_JOB_METER = Symbol('PUBLIC_JOB_METER');
/** Injection token for how often the meter runs (ms; 0 = never). */
export const PUBLIC_METER_INTERVAL_MS = Symbol('PUBLIC_METER_INTERVAL_MS');
/** Injection token for the usage queue's connection and publisher the meter writes to. */
export const PUBLIC_USAGE_SINK = Symbol('PUBLIC_USAGE_SINK');

/** The `usage` queue on its own Redis connection (BullMQ wants one without key prefix), and how to close it. */
export interface UsageSink {
  publish: PublicUsagePublisher;
  redis: Redis;
  close(): Promise<void>;
}

/** The `usage` queue the billing aggregator consumes, as the scheduler writes it too. */
export function createUsageSink(redisUrl: string, prefix: string): UsageSink {
  const redis = createRedis(redisUrl);
  const queue = createQueue(usageCatalog, USAGE_QUEUE, { redis, prefix });
  return {
    redis,
    publish: async (event) => {
      await queue.add('usage.record', event, { jobId: usageJobId(event.eventId) });
    },
    close: () => queue.close(),
  };
}

/** Runs the public-job meter on an interval, one pass at a time; closes the usage queue when the app stops. */
@Injectable()
export class PublicJobMetering implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('PublicJobMeter');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    @Inject(PUBLIC_JOB_METER) private readonly meter: PublicJobMeter,
    @Inject(PUBLIC_USAGE_SINK) private readonly sink: UsageSink,
    @Inject(PUBLIC_METER_INTERVAL_MS) private readonly intervalMs: number,
  ) {}

  onApplicationBootstrap(): void {
    if (this.intervalMs <= 0) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    const timer = this.timer;
    this.timer = undefined;
    await shutdownWithRedis({
      redis: this.sink.redis,
      timer,
      drain: async () => {
        await this.running;
        await this.sink.close();
      },
    });
  }

  private tick(): void {
    // A pass slower than the interval is not stacked; a failed one is retried by the next (nothing is settled).
    if (this.running) return;
    this.running = this.meter
      .meter()
      .then(() => undefined)
      .catch((error: unknown) => this.logger.error(error instanceof Error ? (error.stack ?? error.message) : error))
      .finally(() => {
        this.running = undefined;
      });
  }
}
