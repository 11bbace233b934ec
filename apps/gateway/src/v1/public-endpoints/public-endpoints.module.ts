import { Module } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { EndpointsRepository, PublicEndpointsRepository, PublicEndpointsService } from '@runplane/endpoints';
import { DB_CLIENT } from '@runplane/http';
import { PublicEndpointsController } from './public-endpoints.controller';
import { PUBLIC_ENDPOINTS_SERVICE } from './public-endpoints.tokens';

/** `/v1/public-endpoints`: publishing an account's queue endpoints under model names. */
@Module({
  controllers: [PublicEndpointsController],
  providers: [
    {
      provide: PUBLIC_ENDPOINTS_SERVICE,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) =>
        new PublicEndpointsService(new PublicEndpointsRepository(db), new EndpointsRepository(db)),
    },
  ],
})
export class PublicEndpointsModule {}
