import { z } from 'zod';
import { queryInt } from './common';

/**
 * Runplane's webhook extension of v1: every job webhook is signed the Standard Webhooks way with the account's
 * secret, and each endpoint's deliveries can be listed with their attempts.
 */

/** `GET /v1/webhooks/secret` and `POST /v1/webhooks/secret/rotate`: the account's signing secret, `whsec_<base64>`. */
export const webhookSecretDto = z.object({ secret: z.string().startsWith('whsec_') });
/** The account's webhook signing secret. */
export type WebhookSecretDto = z.infer<typeof webhookSecretDto>;

/** Delivery states: PENDING while attempts remain, then SUCCEEDED (a 2xx answer) or FAILED. */
export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;

/** One POST of a delivery. */
export const webhookAttemptDto = z.object({
  /** 1 for the first try. */
  attempt: z.number().int(),
  url: z.string(),
  /** The receiver's HTTP status; null when there was no answer. */
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  /** Why the attempt failed (e.g. `HTTP 500`, `timed out after 10000 ms`, `refused: ...`); null when delivered. */
  error: z.string().nullable(),
  /** At most 512 bytes of the response body. */
  responseExcerpt: z.string().nullable(),
  startedAt: z.iso.datetime(),
  /** Null while the request is in flight. */
  finishedAt: z.iso.datetime().nullable(),
});
/** One webhook attempt. */
export type WebhookAttemptDto = z.infer<typeof webhookAttemptDto>;

/** One webhook of one finished job: its summary and its attempts, oldest first. */
export const webhookDeliveryDto = z.object({
  id: z.string(),
  endpointId: z.string(),
  jobId: z.string(),
  url: z.string(),
  status: z.enum(WEBHOOK_DELIVERY_STATUSES),
  /** Attempts finished so far. */
  attemptCount: z.number().int(),
  maxAttempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  nextAttemptAt: z.iso.datetime().nullable(),
  deliveredAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  attempts: z.array(webhookAttemptDto),
});
/** One webhook delivery. */
export type WebhookDeliveryDto = z.infer<typeof webhookDeliveryDto>;

/** Query of `GET /v1/endpoints/{endpointId}/webhook-deliveries`: page size and the `nextCursor` of the previous page. */
export const webhookDeliveriesQuery = z.object({
  limit: queryInt(1, 100).default(20),
  cursor: z.string().min(1).max(200).optional(),
});
/** Parsed webhook deliveries query. */
export type WebhookDeliveriesQuery = z.infer<typeof webhookDeliveriesQuery>;

/** A page of deliveries, newest first; `nextCursor` is null on the last page. */
export const webhookDeliveryPageDto = z.object({
  deliveries: z.array(webhookDeliveryDto),
  nextCursor: z.string().nullable(),
});
/** A page of webhook deliveries. */
export type WebhookDeliveryPageDto = z.infer<typeof webhookDeliveryPageDto>;
