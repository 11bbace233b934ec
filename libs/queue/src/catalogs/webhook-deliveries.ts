import { webhookDeliverPayloadSchema } from '@runplane/contracts';
import { defineJobCatalog } from '../catalog';

/** Queue of outbound webhook deliveries: produced by the job engine, consumed by webhook-dispatcher. */
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
