import { usageEventSchema } from '@runplane/contracts';
import { defineJobCatalog } from '../catalog';

/** Queue of usage events: produced by the scheduler, consumed by the billing aggregator. */
export const USAGE_QUEUE = 'usage';

/**
 * `usage.record`: one billable transition (a Pod or worker started or stopped, a network volume created,
 * resized or deleted). Producers add it with `jobId` = {@link usageJobId} of the event, so BullMQ itself drops a
 * duplicate publish while the first is still kept; the aggregator is idempotent on `eventId` for the rest.
 */
export const usageCatalog = defineJobCatalog({
  'usage.record': {
    queue: USAGE_QUEUE,
    schema: usageEventSchema,
    attempts: 10,
    backoff: { type: 'exponential', delayMs: 1_000 },
    timeoutMs: 30_000,
  },
});

/** The BullMQ job id of a usage event: its `eventId` with `:` (which BullMQ reserves in job ids) replaced by `.`. */
export function usageJobId(eventId: string): string {
  return eventId.replaceAll(':', '.');
}
