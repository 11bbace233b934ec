/** Injection token for the gateway's WebhookSecretsService. */
export const WEBHOOK_SECRETS_SERVICE = Symbol('WEBHOOK_SECRETS_SERVICE');
/** Injection token for the gateway's WebhookDeliveriesService. */
export const WEBHOOK_DELIVERIES_SERVICE = Symbol('WEBHOOK_DELIVERIES_SERVICE');
