import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from '@runplane/http';
import type { PodPlacementClient } from '@runplane/workloads';
import { type GatewayConfig, loadBalancerOrigin } from './config';
import { KeyRefusals } from './key-refusals';
import { LegacyGraphqlModule } from './graphql/legacy-graphql.module';
import { SchedulerPlacementClient } from './v1/pods/scheduler-placement.client';
import { V1Module } from './v1/v1.module';
import { rateLimitWindows } from './v2/http/rate-limit';
import { V2Module } from './v2/v2.module';

/** Root module of the gateway: health routes, the management APIs v1 and v2, and RunPod's legacy GraphQL API. */
@Module({})
export class GatewayModule {
  /** `placement` defaults to the scheduler's placement RPC on the deployment's Redis. */
  static forRoot(
    config: GatewayConfig,
    infrastructure: DynamicModule,
    placement?: () => PodPlacementClient,
  ): DynamicModule {
    const placementClient = placement ?? (() => new SchedulerPlacementClient(config.REDIS_URL, config.REDIS_PREFIX));
    return {
      module: GatewayModule,
      imports: [
        infrastructure,
        V1Module.forRoot({ encryptionKey: config.RUNPLANE_ENCRYPTION_KEY, placement: placementClient }),
        V2Module.forRoot({
          encryptionKey: config.RUNPLANE_ENCRYPTION_KEY,
          urls: { jobApiUrl: config.PUBLIC_JOB_API_URL, loadBalancer: loadBalancerOrigin(config) },
          rateLimits: rateLimitWindows(
            config.V2_RATE_LIMIT_PER_MINUTE,
            config.V2_RATE_LIMIT_PER_HOUR,
            config.V2_RATE_LIMIT_PER_DAY,
          ),
        }),
        LegacyGraphqlModule.forRoot({ encryptionKey: config.RUNPLANE_ENCRYPTION_KEY }),
      ],
      controllers: [HealthController],
      providers: [KeyRefusals],
    };
  }
}
