import { z } from 'zod';
import { defineJobCatalog } from '../catalog';
import type { TypedQueue } from '../queues';

/** Queue of single webhook attempts, produced and consumed by the webhook-dispatcher. */
export const WEBHOOK_ATTEMPTS_QUEUE = 'webhook-attempts';

/** Payload of `webhook.attempt`: which attempt of which delivery; the body and URL stay in Postgres. */
export const webhookAttemptPayloadSchema = z.object({
  deliveryId: z.string().min(1),
  attempt: z.number().int().min(1),
});

/**
 * The dispatcher's own retry schedule: each attempt is a job of its own, added with the configured delay and the
 * id `<delivery>-<attempt>`, so re-adding it (after a crash, or from a second replica) is a no-op. BullMQ's own
 * retries here only cover the dispatcher's trouble (Postgres unreachable: 10 tries over about 8 minutes), never a
 * receiver's failure, which is an outcome the handler records.
 */
export const webhookAttemptsCatalog = defineJobCatalog({
  'webhook.attempt': {
    queue: WEBHOOK_ATTEMPTS_QUEUE,
    schema: webhookAttemptPayloadSchema,
    attempts: 10,
    backoff: { type: 'exponential', delayMs: 1_000 },
  },
});

/** Producer of attempt jobs. */
export type WebhookAttemptsQueue = TypedQueue<typeof webhookAttemptsCatalog, typeof WEBHOOK_ATTEMPTS_QUEUE>;

/** The deterministic queue id of one attempt. */
export function attemptJobId(deliveryId: string, attempt: number): string {
  return `${deliveryId}-${attempt}`;
}
