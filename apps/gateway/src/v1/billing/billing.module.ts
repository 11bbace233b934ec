import { Module } from '@nestjs/common';
import { createBillingService } from '@runplane/billing';
import { CatalogRepository } from '@runplane/catalog';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { BillingController } from './billing.controller';
import { BILLING_SERVICE } from './billing.tokens';

/** `/v1/billing/*`: reads of the billing records the billing aggregator writes. */
@Module({
  controllers: [BillingController],
  providers: [
    {
      provide: BILLING_SERVICE,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) => createBillingService(db, new CatalogRepository(db)),
    },
  ],
})
export class BillingModule {}
