import { Module } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { PodRepository, type PodsService } from '@runplane/workloads';
import { PodsModule } from '../../v1/pods/pods.module';
import { PODS_SERVICE } from '../../v1/pods/pods.tokens';
import { PodsV2Controller } from './pods.controller';
import { PodsV2Service } from './pods-v2.service';

/** `/v2/pods`, on the PodsService v1 serves (same rows, placement and lifecycle rules). */
@Module({
  imports: [PodsModule],
  controllers: [PodsV2Controller],
  providers: [
    {
      provide: PodsV2Service,
      inject: [PODS_SERVICE, DB_CLIENT],
      useFactory: (pods: PodsService, db: DbClient) => new PodsV2Service(pods, new PodRepository(db)),
    },
  ],
})
export class PodsV2Module {}
