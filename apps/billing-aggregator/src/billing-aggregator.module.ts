import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from '@runplane/http';

/** Root module of the billing-aggregator (per-second billing roll-ups). */
@Module({})
export class BillingAggregatorModule {
  static forRoot(infrastructure: DynamicModule): DynamicModule {
    return { module: BillingAggregatorModule, imports: [infrastructure], controllers: [HealthController] };
  }
}
