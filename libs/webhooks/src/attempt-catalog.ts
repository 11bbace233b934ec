import { z } from 'zod';
import { defineJobCatalog, type TypedQueue } from '@runplane/queue';

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

/** Queues attempt `attempt` of a delivery to start after `delayMs`; adding one that is already queued does nothing. */
export async function scheduleAttempt(
  queue: WebhookAttemptsQueue,
  deliveryId: string,
  attempt: number,
  delayMs: number,
): Promise<void> {
  await queue.add(
    'webhook.attempt',
    { deliveryId, attempt },
    { jobId: attemptJobId(deliveryId, attempt), delayMs: Math.max(0, delayMs) },
  );
}

/**
 * Queues attempt `attempt` again for the sweep of overdue deliveries: a job of that id that failed (the dispatcher's
 * own trouble, e.g. Postgres, outlasted its retries) is retried, a lost one is added, a queued one is left alone.
 */
export async function requeueAttempt(
  queue: WebhookAttemptsQueue,
  deliveryId: string,
  attempt: number,
  delayMs: number,
): Promise<void> {
  if (await queue.retryFailed(attemptJobId(deliveryId, attempt))) return;
  await scheduleAttempt(queue, deliveryId, attempt, delayMs);
}
