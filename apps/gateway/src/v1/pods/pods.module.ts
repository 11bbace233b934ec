import { Module } from '@nestjs/common';
import { CatalogRepository } from '@runplane/catalog';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { PodRepository, PodsService, type TemplatesService } from '@runplane/workloads';
import { TemplatesModule } from '../templates/templates.module';
import { TEMPLATES_SERVICE } from '../templates/templates.tokens';
import { PodsController } from './pods.controller';
import { PODS_SERVICE } from './pods.tokens';

/** `/v1/pods`: Pods priced from the catalog and created from images or the templates the caller may use. */
@Module({
  imports: [TemplatesModule],
  controllers: [PodsController],
  providers: [
    {
      provide: PODS_SERVICE,
      inject: [DB_CLIENT, TEMPLATES_SERVICE],
      useFactory: (db: DbClient, templates: TemplatesService) =>
        new PodsService(new PodRepository(db), new CatalogRepository(db), templates),
    },
  ],
  exports: [PODS_SERVICE],
})
export class PodsModule {}
