import { Module } from '@nestjs/common';
import { BillingBucketsRepository } from '@runplane/billing';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { BillingV2Service } from './billing-v2.service';
import { BillingV2Controller } from './billing.controller';

/** `/v2/billing/*`: reads of the billing records the billing aggregator writes (the ones /v1/billing reads). */
@Module({
  controllers: [BillingV2Controller],
  providers: [
    {
      provide: BillingV2Service,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) => new BillingV2Service(new BillingBucketsRepository(db)),
    },
  ],
})
export class BillingV2Module {}
