import { webhookDeliverPayloadSchema } from '@runplane/contracts';
import { defineJobCatalog, type Redis, type TypedQueue } from '@runplane/queue';
import { toJobRecord, type JobKeys } from './job-store';

/** Queue of outbound webhook deliveries (consumed by webhook-dispatcher). */
export const WEBHOOKS_QUEUE = 'webhooks';

/**
 * Jobs the job engine produces. `webhook.deliver`: POST a finished job's /status record to its webhook; RunPod
 * makes 3 attempts 10 s apart.
 */
export const jobEventsCatalog = defineJobCatalog({
  'webhook.deliver': {
    queue: WEBHOOKS_QUEUE,
    schema: webhookDeliverPayloadSchema,
    attempts: 3,
    backoff: { type: 'fixed', delayMs: 10_000 },
    timeoutMs: 30_000,
  },
});

/** Queues `webhook.deliver` for a finished job that has a webhook; the id (job id + finish time) makes it idempotent. */
export async function enqueueWebhook(
  redis: Redis,
  keys: JobKeys,
  webhooks: TypedQueue<typeof jobEventsCatalog, typeof WEBHOOKS_QUEUE>,
  endpointId: string,
  jobId: string,
  now: number,
): Promise<void> {
  const hash = await redis.hgetall(keys.job(endpointId, jobId));
  const url = hash['webhook'];
  if (!url || !hash['status']) return;
  const record = toJobRecord(hash, now);
  await webhooks.add('webhook.deliver', { endpointId, jobId, url, record }, { jobId: `${jobId}-${hash['doneAt']}` });
}
