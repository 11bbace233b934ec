export { DEFAULT_DELIVERY_POLICY, failureOf, isDelivered, nextStep } from './policy';
export type { AttemptOutcome, DeliveryPolicy, NextStep } from './policy';
export {
  parseAllowedHosts,
  refusedAddressReason,
  RefusedUrlError,
  UnresolvedHostError,
  WebhookUrlGuard,
} from './url-safety';
export type { Destination, HostResolver } from './url-safety';
export { excerptOf, RESPONSE_EXCERPT_BYTES, UndiciWebhookSender } from './http-sender';
export type { WebhookRequest, WebhookSender } from './http-sender';
export { generateSigningSecret, messageIdOf, signatureHeaders } from './signing';
export { WebhookDeliveriesRepository } from './deliveries.repository';
export type { DeliveryCursor, DeliveryWithAttempts, FinishedAttempt, NewDelivery } from './deliveries.repository';
export { decodeCursor, encodeCursor, WebhookDeliveriesService } from './deliveries.service';
export { WebhookSecretsRepository } from './secrets.repository';
export { WebhookSecretsService, type SecretSealer } from './secrets.service';
export { requeueAttempt, scheduleAttempt } from './attempt-schedule';
export {
  OrphanedWebhookError,
  WebhookDispatcher,
  type AttemptResult,
  type AttemptScheduler,
  type DeliveryObserver,
  type WebhookDispatcherDeps,
} from './dispatcher';
