import { Global, Module, type DynamicModule } from '@nestjs/common';
import { createAccountsServices } from '@runplane/accounts';
import { type DbClient, SecretBox } from '@runplane/db';
import { API_KEY_AUTHENTICATOR, DB_CLIENT } from '@runplane/http';
import { type PodPlacementClient, RegistryAuthRepository, RegistryAuthService } from '@runplane/workloads';
import { ApiKeysController } from './api-keys.controller';
import { RegistryAuthController } from './registry-auth.controller';
import { API_KEYS_SERVICE, REGISTRY_AUTH_SERVICE } from './tokens';
import { NetworkVolumesModule } from './network-volumes/network-volumes.module';
import { TemplatesModule } from './templates/templates.module';
import { PodsModule } from './pods/pods.module';
import { PLACEMENT_CLIENT } from './pods/pods.tokens';
import { OpenApiModule } from './openapi/openapi.module';
import { EndpointsModule } from './endpoints/endpoints.module';
import { BillingModule } from './billing/billing.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { PublicEndpointsModule } from './public-endpoints/public-endpoints.module';
import { S3KeysModule } from './s3-keys/s3-keys.module';

/** Settings the v1 API needs beyond the shared infrastructure. */
export interface V1Options {
  encryptionKey: Buffer;
  /** Reserves capacity for new Pods (the scheduler's placement RPC; tests may give an in-process one). */
  placement: () => PodPlacementClient;
}

/** The management REST API v1 (RunPod-compatible) and Runplane's API-key extension. */
@Global()
@Module({})
export class V1Module {
  static forRoot(options: V1Options): DynamicModule {
    return {
      module: V1Module,
      imports: [
        TemplatesModule,
        NetworkVolumesModule,
        PodsModule,
        OpenApiModule,
        EndpointsModule,
        BillingModule,
        WebhooksModule.forRoot(options),
        PublicEndpointsModule,
        S3KeysModule.forRoot(options),
      ],
      controllers: [ApiKeysController, RegistryAuthController],
      providers: [
        {
          provide: API_KEYS_SERVICE,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) => createAccountsServices(db).apiKeys,
        },
        { provide: API_KEY_AUTHENTICATOR, useExisting: API_KEYS_SERVICE },
        { provide: PLACEMENT_CLIENT, useFactory: options.placement },
        {
          provide: REGISTRY_AUTH_SERVICE,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) =>
            new RegistryAuthService(new RegistryAuthRepository(db), new SecretBox(options.encryptionKey)),
        },
      ],
      exports: [API_KEY_AUTHENTICATOR, API_KEYS_SERVICE, PLACEMENT_CLIENT],
    };
  }
}
