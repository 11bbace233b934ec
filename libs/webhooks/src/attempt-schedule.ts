import { attemptJobId, type WebhookAttemptsQueue } from '@runplane/queue';

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
