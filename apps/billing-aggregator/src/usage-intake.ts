import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { startUsageConsumer, type UsageAggregator, type UsageFailure } from '@runplane/billing';
import { METRICS_REGISTRY } from '@runplane/http';
import type { Counter, MetricsRegistry } from '@runplane/observability';
import { type Redis, shutdownWithRedis, type TypedWorker } from '@runplane/queue';
import { AGGREGATOR_SETTINGS, QUEUE_REDIS, USAGE_AGGREGATOR } from './tokens';

/** What the intake and the roll-up need to know. */
export interface AggregatorSettings {
  redisPrefix: string;
  concurrency: number;
  rollUpIntervalMs: number;
}

/**
 * Runs the usage queue consumer and the periodic roll-up; closes both, then their Redis client, on shutdown.
 * Failed events are reported as an error log line and `runplane_usage_events_failed_total{reason}`; accepted ones
 * are counted in `runplane_usage_events_applied_total{outcome}` (recorded, or duplicate: recorded before).
 */
@Injectable()
export class UsageIntake implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('UsageIntake');
  private readonly failures: Counter<'reason'>;
  private readonly recorded: Counter<'outcome'>;
  private consumer: TypedWorker | undefined;
  private timer: NodeJS.Timeout | undefined;
  private rolling: Promise<void> | undefined;

  constructor(
    @Inject(USAGE_AGGREGATOR) private readonly aggregator: UsageAggregator,
    @Inject(QUEUE_REDIS) private readonly redis: Redis,
    @Inject(AGGREGATOR_SETTINGS) private readonly settings: AggregatorSettings,
    @Inject(METRICS_REGISTRY) metrics: MetricsRegistry,
  ) {
    this.failures = metrics.counter('runplane_usage_events_failed_total', 'Usage events that will never be applied', [
      'reason',
    ]);
    this.recorded = metrics.counter('runplane_usage_events_applied_total', 'Usage events the aggregator accepted', [
      'outcome',
    ]);
  }

  onApplicationBootstrap(): void {
    this.consumer = startUsageConsumer(this.aggregator, {
      redis: this.redis,
      prefix: this.settings.redisPrefix,
      concurrency: this.settings.concurrency,
      onFailure: (failure) => this.report(failure),
      onRecorded: (outcome) => this.recorded.inc({ outcome }),
      onError: (error) => this.logger.warn(`usage queue: ${error.message}`),
    });
    if (this.settings.rollUpIntervalMs <= 0) return;
    this.timer = setInterval(() => this.tick(), this.settings.rollUpIntervalMs);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await shutdownWithRedis({
      redis: this.redis,
      timer: this.timer,
      drain: async (redisUp) => {
        // Without Redis, running jobs cannot be completed anyway: close without waiting for them.
        const closing = redisUp ? this.consumer?.close() : this.consumer?.worker.close(true);
        await closing?.catch((error: unknown) => this.logger.warn(`closing the usage consumer: ${String(error)}`));
        await this.rolling;
      },
    });
  }

  private report(failure: UsageFailure): void {
    this.failures.inc({ reason: failure.reason });
    this.logger.error(`usage event ${failure.eventId} not applied (${failure.reason}): ${failure.message}`);
  }

  private tick(): void {
    // A roll-up slower than the interval is not stacked: the next tick finds it running and skips.
    if (this.rolling) return;
    this.rolling = this.aggregator
      .rollUp()
      .then(() => undefined)
      .catch((error: unknown) =>
        this.logger.error(`roll-up failed: ${error instanceof Error ? error.message : String(error)}`),
      )
      .finally(() => {
        this.rolling = undefined;
      });
  }
}
