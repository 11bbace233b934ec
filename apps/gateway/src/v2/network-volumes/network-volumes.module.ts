import { Module } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import { NetworkVolumesRepository, type NetworkVolumesService } from '@runplane/workloads';
import { NetworkVolumesModule } from '../../v1/network-volumes/network-volumes.module';
import { NETWORK_VOLUMES_SERVICE } from '../../v1/network-volumes/network-volumes.tokens';
import { NetworkVolumesV2Controller } from './network-volumes.controller';
import { NetworkVolumesV2Service } from './network-volumes-v2.service';

/** `/v2/network-volumes`, on the NetworkVolumesService v1 serves (same rows, same rules). */
@Module({
  imports: [NetworkVolumesModule],
  controllers: [NetworkVolumesV2Controller],
  providers: [
    {
      provide: NetworkVolumesV2Service,
      inject: [NETWORK_VOLUMES_SERVICE, DB_CLIENT],
      useFactory: (volumes: NetworkVolumesService, db: DbClient) =>
        new NetworkVolumesV2Service({
          volumes,
          rows: new NetworkVolumesRepository(db),
          setHighPerformance: async (accountId, id) => {
            await db.networkVolume.updateMany({ where: { id, accountId }, data: { highPerformance: true } });
          },
        }),
    },
  ],
})
export class NetworkVolumesV2Module {}
