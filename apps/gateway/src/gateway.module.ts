import { type DynamicModule, Module } from '@nestjs/common';
import { HealthController } from '@runplane/http';
import type { GatewayConfig } from './config';
import { V1Module } from './v1/v1.module';

/** Root module of the gateway: health routes and the v1 API. */
@Module({})
export class GatewayModule {
  static forRoot(config: GatewayConfig, infrastructure: DynamicModule): DynamicModule {
    return {
      module: GatewayModule,
      imports: [infrastructure, V1Module.forRoot({ encryptionKey: config.RUNPLANE_ENCRYPTION_KEY })],
      controllers: [HealthController],
    };
  }
}
