import { Module } from '@nestjs/common';
import { CatalogRepository } from '@runplane/catalog';
import type { DbClient } from '@runplane/db';
import { createEndpointsService } from '@runplane/endpoints';
import { DB_CLIENT, REDIS_CLIENT } from '@runplane/http';
import type { Redis } from '@runplane/queue';
import type { NetworkVolumesService, PodsService, TemplatesService } from '@runplane/workloads';
import { NetworkVolumesModule } from '../network-volumes/network-volumes.module';
import { NETWORK_VOLUMES_SERVICE } from '../network-volumes/network-volumes.tokens';
import { PodsModule } from '../pods/pods.module';
import { PODS_SERVICE } from '../pods/pods.tokens';
import { TemplatesModule } from '../templates/templates.module';
import { TEMPLATES_SERVICE } from '../templates/templates.tokens';
import { runtimeData, templateSource, volumeSource, workerSource } from './endpoint-sources';
import { EndpointsController } from './endpoints.controller';
import { ENDPOINTS_SERVICE } from './endpoints.tokens';

/** `/v1/endpoints`: serverless endpoints built from templates, checked against the catalog and the caller's volumes; deleting one purges its jobs. */
@Module({
  imports: [TemplatesModule, NetworkVolumesModule, PodsModule],
  controllers: [EndpointsController],
  providers: [
    {
      provide: ENDPOINTS_SERVICE,
      inject: [DB_CLIENT, REDIS_CLIENT, TEMPLATES_SERVICE, NETWORK_VOLUMES_SERVICE, PODS_SERVICE],
      useFactory: (
        db: DbClient,
        redis: Redis,
        templates: TemplatesService,
        volumes: NetworkVolumesService,
        pods: PodsService,
      ) =>
        createEndpointsService(db, {
          catalog: new CatalogRepository(db),
          templates: templateSource(templates),
          volumes: volumeSource(volumes),
          workers: workerSource(pods),
          runtime: runtimeData(redis),
        }),
    },
  ],
  exports: [ENDPOINTS_SERVICE],
})
export class EndpointsModule {}
