import { webhookDeliveriesQuery, webhookDeliveryPageDto, webhookSecretDto } from '@runplane/contracts';
import { json, named, type V1Route } from '../route';

const secret = named('WebhookSecret', webhookSecretDto);
const tag = 'webhooks (Runplane)';

/**
 * Runplane's webhook extension: the Standard Webhooks signing secret of the account, and each endpoint's webhook
 * deliveries with their attempts.
 */
export const webhookRoutes: V1Route[] = [
  {
    method: 'GET',
    path: '/webhooks/secret',
    operationId: 'GetWebhookSecret',
    summary: 'The signing secret (whsec_…) of job webhooks, created on first read',
    tag,
    status: 200,
    response: json(secret),
  },
  {
    method: 'POST',
    path: '/webhooks/secret/rotate',
    operationId: 'RotateWebhookSecret',
    summary: 'Replace the signing secret; webhooks sent from now on are signed with the new one only',
    tag,
    status: 200,
    response: json(secret),
  },
  {
    method: 'GET',
    path: '/endpoints/{endpointId}/webhook-deliveries',
    operationId: 'ListWebhookDeliveries',
    summary: "An endpoint's webhook deliveries, newest first, each with its attempts (paged by cursor)",
    tag,
    status: 200,
    query: webhookDeliveriesQuery,
    response: json(named('WebhookDeliveryPage', webhookDeliveryPageDto)),
  },
];
