import { type DynamicModule, Module } from '@nestjs/common';
import {
  accessProviders,
  engineProviders,
  jobApiServiceProviders,
  type JobsApiOptions,
  limitProviders,
  routeProviders,
} from './jobs-api.providers';
import { loadBalancerProviders } from './load-balancer/load-balancer.providers';
import { publicEndpointProviders } from './public/public-providers';

export type { JobsApiOptions } from './jobs-api.providers';

/**
 * The serverless job API v2 (clients) and the worker protocol (workers), with auth, limits and the engine sweep; and
 * the load-balancing endpoints' proxy (by Host), on the same keys and limits.
 */
@Module({})
export class JobsApiModule {
  static forRoot(options: JobsApiOptions): DynamicModule {
    return {
      module: JobsApiModule,
      providers: [
        ...engineProviders(options),
        ...accessProviders(options.config),
        ...jobApiServiceProviders(options.config),
        ...limitProviders(options.config),
        ...routeProviders(options.config),
        ...loadBalancerProviders(options.config),
        ...publicEndpointProviders(options.config),
      ],
    };
  }
}
