import { Module } from '@nestjs/common';
import { CatalogRepository } from '@runplane/catalog';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { type DataCenterCatalog, NetworkVolumesRepository, NetworkVolumesService } from '@runplane/workloads';
import { NetworkVolumesController } from './network-volumes.controller';
import { NETWORK_VOLUMES_SERVICE } from './network-volumes.tokens';

/** The catalog seen as the list of data centers a volume may live in. */
function dataCenterCatalog(catalog: CatalogRepository): DataCenterCatalog {
  return { hasDataCenter: async (id) => (await catalog.findDataCenter(id)) !== null };
}

/** `/v1/networkvolumes`; exports NETWORK_VOLUMES_SERVICE so Pods and endpoints can check the volumes they attach. */
@Module({
  controllers: [NetworkVolumesController],
  providers: [
    {
      provide: NETWORK_VOLUMES_SERVICE,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) =>
        new NetworkVolumesService(new NetworkVolumesRepository(db), dataCenterCatalog(new CatalogRepository(db))),
    },
  ],
  exports: [NETWORK_VOLUMES_SERVICE],
})
export class NetworkVolumesModule {}
