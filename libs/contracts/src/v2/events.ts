import { z } from 'zod';
import { jobRecordSchema } from './jobs';

/** Payload of the `webhook.deliver` job (queue `webhooks`): POST `record` (the job's /status body) to `url`. */
export const webhookDeliverPayloadSchema = z.object({
  endpointId: z.string().min(1),
  jobId: z.string().min(1),
  url: z.string().url(),
  record: jobRecordSchema,
  /** The account that owns the endpoint (absent in payloads queued before it was added). */
  accountId: z.string().min(1).optional(),
});

/** A `webhook.deliver` payload. */
export type WebhookDeliverPayload = z.infer<typeof webhookDeliverPayloadSchema>;
