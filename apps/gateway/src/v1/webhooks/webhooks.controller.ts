import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  type Principal,
  webhookDeliveriesQuery,
  type WebhookDeliveriesQuery,
  type WebhookDeliveryPageDto,
  type WebhookSecretDto,
} from '@runplane/contracts';
import { Authenticated, CurrentPrincipal, EndpointScoped, Reads, ReadsSecret, Writes, ZodPipe } from '@runplane/http';
import type { WebhookDeliveriesService, WebhookSecretsService } from '@runplane/webhooks';
import { WEBHOOK_DELIVERIES_SERVICE, WEBHOOK_SECRETS_SERVICE } from './webhooks.tokens';

/**
 * Runplane's extension: the account's Standard Webhooks signing secret (created on first read). A key that may only
 * read never gets it: with the secret it could sign webhooks as Runplane.
 */
@Controller('v1/webhooks')
@Authenticated()
export class WebhookSecretController {
  constructor(@Inject(WEBHOOK_SECRETS_SERVICE) private readonly secrets: WebhookSecretsService) {}

  @Get('secret')
  @ReadsSecret()
  get(@CurrentPrincipal() principal: Principal): Promise<WebhookSecretDto> {
    return this.secrets.get(principal.accountId);
  }

  @Post('secret/rotate')
  @Writes()
  @HttpCode(200)
  rotate(@CurrentPrincipal() principal: Principal): Promise<WebhookSecretDto> {
    return this.secrets.rotate(principal.accountId);
  }
}

/** Runplane's extension: an endpoint's webhook deliveries, newest first, with their attempts. */
@Controller('v1/endpoints')
@Authenticated()
export class WebhookDeliveriesController {
  constructor(@Inject(WEBHOOK_DELIVERIES_SERVICE) private readonly deliveries: WebhookDeliveriesService) {}

  @Get(':endpointId/webhook-deliveries')
  @Reads()
  @EndpointScoped()
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Query(new ZodPipe(webhookDeliveriesQuery)) query: WebhookDeliveriesQuery,
  ): Promise<WebhookDeliveryPageDto> {
    return this.deliveries.list(principal.accountId, endpointId, query);
  }
}
