export { USAGE_QUEUE, usageCatalog, usageJobId } from './usage';
export {
  attemptJobId,
  WEBHOOK_ATTEMPTS_QUEUE,
  webhookAttemptPayloadSchema,
  webhookAttemptsCatalog,
  type WebhookAttemptsQueue,
} from './webhook-attempts';
export { jobEventsCatalog, WEBHOOKS_QUEUE } from './webhook-deliveries';
