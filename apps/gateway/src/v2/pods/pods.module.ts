import { Module } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { PodRepository, type PodsService, type TemplatesService } from '@runplane/workloads';
import { PodsModule } from '../../v1/pods/pods.module';
import { PODS_SERVICE } from '../../v1/pods/pods.tokens';
import { TemplatesModule } from '../../v1/templates/templates.module';
import { TEMPLATES_SERVICE } from '../../v1/templates/templates.tokens';
import { PodsV2Controller } from './pods.controller';
import { PodsV2Service } from './pods-v2.service';

/** `/v2/pods`, on the PodsService v1 serves (same rows, placement and lifecycle rules). */
@Module({
  imports: [PodsModule, TemplatesModule],
  controllers: [PodsV2Controller],
  providers: [
    {
      provide: PodsV2Service,
      inject: [PODS_SERVICE, DB_CLIENT, TEMPLATES_SERVICE],
      useFactory: (pods: PodsService, db: DbClient, templates: TemplatesService) =>
        new PodsV2Service(pods, new PodRepository(db), templates),
    },
  ],
})
export class PodsV2Module {}
