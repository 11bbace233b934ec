import type { Provider } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { EndpointsRepository, PublicEndpointsRepository, PublicEndpointsService } from '@runplane/endpoints';
import { DB_CLIENT, REDIS_CLIENT } from '@runplane/http';
import type { Redis } from '@runplane/queue';
import type { JobRouterConfig } from '../config';
import { JOB_ENGINE } from '../tokens';
import type { JobRouterEngine } from '../client/job-api.service';
import { PublicJobLedger } from './public-job-ledger';
import { PublicJobMeter } from './public-job-meter';
import {
  createUsageSink,
  PUBLIC_JOB_METER,
  PUBLIC_METER_INTERVAL_MS,
  PUBLIC_USAGE_SINK,
  PublicJobMetering,
  type UsageSink,
} from './public-job-metering';

/** Injection token for the public model catalog (`GET /v2/public-endpoints`). */
export const PUBLIC_MODEL_CATALOG = Symbol('PUBLIC_MODEL_CATALOG');

/**
 * Public endpoints on the job API: the callers' job ledger, the model catalog, and the meter that bills callers'
 * finished jobs (on the engine sweep's interval).
 */
export function publicEndpointProviders(config: JobRouterConfig): Provider[] {
  return [
    { provide: PublicJobLedger, inject: [REDIS_CLIENT], useFactory: (redis: Redis) => new PublicJobLedger(redis) },
    {
      provide: PUBLIC_MODEL_CATALOG,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) =>
        new PublicEndpointsService(new PublicEndpointsRepository(db), new EndpointsRepository(db)),
    },
    { provide: PUBLIC_USAGE_SINK, useFactory: () => createUsageSink(config.REDIS_URL, config.REDIS_PREFIX) },
    {
      provide: PUBLIC_JOB_METER,
      inject: [JOB_ENGINE, PublicJobLedger, DB_CLIENT, PUBLIC_USAGE_SINK],
      useFactory: (engine: JobRouterEngine, ledger: PublicJobLedger, db: DbClient, sink: UsageSink) =>
        new PublicJobMeter(engine, ledger, new PublicEndpointsRepository(db), sink.publish),
    },
    { provide: PUBLIC_METER_INTERVAL_MS, useValue: config.JOB_SWEEP_INTERVAL_MS },
    PublicJobMetering,
  ];
}
