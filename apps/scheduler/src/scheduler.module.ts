import {
  type DynamicModule,
  Inject,
  Injectable,
  Module,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { placementPattern } from '@runplane/contracts';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT, HealthController, METRICS_REGISTRY, REDIS_CLIENT } from '@runplane/http';
import type { MetricsRegistry } from '@runplane/observability';
import type { Redis } from '@runplane/queue';
import type { SchedulerConfig } from './config';
import type { ComputeDriver } from './drivers/compute-driver';
import { createDriver } from './drivers/create-driver';
import { logStreamProvider } from './drivers/logs/log-stream.provider';
import { coldStartHistogram } from './cold-start/cold-start-metrics';
import { createSchedulerMetrics } from './metrics/create-scheduler-metrics';
import { PLACEMENT_SERVICE, placementController } from './placement/placement.controller';
import { SchedulerRuntime } from './scheduler-runtime';

/** Injection token for the scheduler's runtime (loops, driver, placement). */
export const SCHEDULER_RUNTIME = Symbol('SCHEDULER_RUNTIME');

@Injectable()
class RuntimeLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(@Inject(SCHEDULER_RUNTIME) private readonly runtime: SchedulerRuntime) {}

  onApplicationBootstrap(): void {
    this.runtime.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.runtime.stop();
  }
}

/** Root module of the scheduler (placement RPC, pod lifecycle, autoscaling, usage events). */
@Module({})
export class SchedulerModule {
  /** `driver` replaces the configured compute driver (tests). */
  static forRoot(infrastructure: DynamicModule, config: SchedulerConfig, driver?: () => ComputeDriver): DynamicModule {
    return {
      module: SchedulerModule,
      imports: [infrastructure],
      controllers: [HealthController, placementController(placementPattern(config.REDIS_PREFIX))],
      providers: [
        {
          provide: SCHEDULER_RUNTIME,
          inject: [DB_CLIENT, REDIS_CLIENT, METRICS_REGISTRY],
          useFactory: (db: DbClient, redis: Redis, registry: MetricsRegistry) => {
            const metrics = createSchedulerMetrics(registry, db, redis, config);
            const compute = driver ? driver() : createDriver(config, process.env, db, metrics.kube);
            const runtime = new SchedulerRuntime(config, db, redis, compute, metrics);
            runtime.coldStarts.observeIn(coldStartHistogram(registry));
            return runtime;
          },
        },
        {
          provide: PLACEMENT_SERVICE,
          inject: [SCHEDULER_RUNTIME],
          useFactory: (runtime: SchedulerRuntime) => runtime.placement,
        },
        RuntimeLifecycle,
        logStreamProvider(config, SCHEDULER_RUNTIME),
      ],
      exports: [SCHEDULER_RUNTIME],
    };
  }
}
