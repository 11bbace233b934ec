import { type DynamicModule, Module } from '@nestjs/common';
import { type Clock, UsageAggregator } from '@runplane/billing';
import type { StoragePrices } from '@runplane/contracts';
import type { DatabaseClient } from '@runplane/db';
import { DB_CLIENT, HealthController } from '@runplane/http';
import { createRedis } from '@runplane/queue';
import { AGGREGATOR_SETTINGS, QUEUE_REDIS, USAGE_AGGREGATOR } from './tokens';
import { type AggregatorSettings, UsageIntake } from './usage-intake';

/** What the aggregator is built from beyond the shared infrastructure. */
export interface AggregatorOptions {
  redisUrl: string;
  settings: AggregatorSettings;
  prices: StoragePrices;
  /** Tests pass a fake clock. */
  clock?: Clock;
}

/** Root module of the billing-aggregator: usage events to intervals to hourly billing records. */
@Module({})
export class BillingAggregatorModule {
  static forRoot(infrastructure: DynamicModule, options: AggregatorOptions): DynamicModule {
    const clock = options.clock ?? { now: () => Date.now() };
    return {
      module: BillingAggregatorModule,
      imports: [infrastructure],
      controllers: [HealthController],
      providers: [
        // BullMQ needs a client without key prefix; it prefixes its keys itself.
        { provide: QUEUE_REDIS, useFactory: () => createRedis(options.redisUrl) },
        { provide: AGGREGATOR_SETTINGS, useValue: options.settings },
        {
          provide: USAGE_AGGREGATOR,
          inject: [DB_CLIENT],
          useFactory: (db: DatabaseClient) => new UsageAggregator(db, { prices: options.prices, clock }),
        },
        UsageIntake,
      ],
    };
  }
}
