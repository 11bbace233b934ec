import { type DynamicModule, Module } from '@nestjs/common';
import { type DbClient, SecretBox } from '@runplane/db';
import { DB_CLIENT } from '@runplane/http';
import {
  WebhookDeliveriesRepository,
  WebhookDeliveriesService,
  WebhookSecretsRepository,
  WebhookSecretsService,
} from '@runplane/webhooks';
import { WebhookDeliveriesController, WebhookSecretController } from './webhooks.controller';
import { WEBHOOK_DELIVERIES_SERVICE, WEBHOOK_SECRETS_SERVICE } from './webhooks.tokens';

/** `/v1/webhooks/secret*` and `/v1/endpoints/{id}/webhook-deliveries` (Runplane's webhook extension). */
@Module({})
export class WebhooksModule {
  /** `encryptionKey` seals signing secrets, as it seals registry-auth passwords (the same SecretBox). */
  static forRoot(options: { encryptionKey: Buffer }): DynamicModule {
    return {
      module: WebhooksModule,
      controllers: [WebhookSecretController, WebhookDeliveriesController],
      providers: [
        {
          provide: WEBHOOK_SECRETS_SERVICE,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) =>
            new WebhookSecretsService(new WebhookSecretsRepository(db), new SecretBox(options.encryptionKey)),
        },
        {
          provide: WEBHOOK_DELIVERIES_SERVICE,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) => new WebhookDeliveriesService(new WebhookDeliveriesRepository(db)),
        },
      ],
    };
  }
}
