import { Module } from '@nestjs/common';
import { CatalogRepository } from '@runplane/catalog';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { type PodPlacementClient, PodRepository, PodsService, type TemplatesService } from '@runplane/workloads';
import { TemplatesModule } from '../templates/templates.module';
import { TEMPLATES_SERVICE } from '../templates/templates.tokens';
import { PodsController } from './pods.controller';
import { PLACEMENT_CLIENT, PODS_SERVICE } from './pods.tokens';

/**
 * `/v1/pods`: Pods priced from the catalog and created from images or the templates the caller may use; capacity is
 * reserved through PLACEMENT_CLIENT (provided by V1Module: the scheduler's RPC) before a row is written.
 */
@Module({
  imports: [TemplatesModule],
  controllers: [PodsController],
  providers: [
    {
      provide: PODS_SERVICE,
      inject: [DB_CLIENT, TEMPLATES_SERVICE, PLACEMENT_CLIENT],
      useFactory: (db: DbClient, templates: TemplatesService, placement: PodPlacementClient) =>
        new PodsService(new PodRepository(db), new CatalogRepository(db), templates, undefined, placement),
    },
  ],
  exports: [PODS_SERVICE],
})
export class PodsModule {}
