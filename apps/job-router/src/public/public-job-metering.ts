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
import { SerialInterval } from '../serial-interval';
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
  private readonly passes: SerialInterval;

  constructor(
    @Inject(PUBLIC_JOB_METER) private readonly meter: PublicJobMeter,
    @Inject(PUBLIC_USAGE_SINK) private readonly sink: UsageSink,
    @Inject(PUBLIC_METER_INTERVAL_MS) private readonly intervalMs: number,
  ) {
    const logger = new Logger('PublicJobMeter');
    // A failed pass is retried by the next (nothing is settled).
    this.passes = new SerialInterval(
      () => meter.meter(),
      (error) => logger.error(error instanceof Error ? (error.stack ?? error.message) : error),
    );
  }

  onApplicationBootstrap(): void {
    this.passes.start(this.intervalMs);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await shutdownWithRedis({
      redis: this.sink.redis,
      timer: this.passes.stop(),
      drain: async () => {
        await this.passes.settled();
        await this.sink.close();
      },
    });
  }
}
