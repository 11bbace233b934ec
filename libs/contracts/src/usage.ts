import { z } from 'zod';

/**
 * Usage events: what the scheduler publishes on the `usage` queue and the billing aggregator turns into
 * usage intervals. One event per state transition of a billable resource, exactly once per transition:
 * `eventId` is deterministic (resource id + transition + the transition's sequence number or time), so a
 * replayed event is recognised and changes nothing.
 *
 * Money is a decimal string in USD (never a float); times are ISO-8601 UTC instants.
 */

const decimalString = z.string().regex(/^\d+(\.\d+)?$/, 'must be a non-negative decimal string');
const instant = z.string().datetime({ offset: true });

const base = {
  /** Deterministic id of this transition; replaying it is a no-op. */
  eventId: z.string().min(1).max(256),
  accountId: z.string().min(1),
  /** When the transition happened (not when it was published). */
  occurredAt: instant,
};

/** The compute a Pod or worker holds while it runs, and the price in force for it. */
const compute = {
  gpuTypeId: z.string().nullable(),
  gpuCount: z.number().int().min(0),
  cpuFlavorId: z.string().nullable(),
  cloudType: z.enum(['SECURE', 'COMMUNITY']),
  interruptible: z.boolean(),
  dataCenterId: z.string().nullable(),
  /** USD per hour for the whole Pod while running (all GPUs, or the CPU flavor), as priced at start. */
  costPerHr: decimalString,
};

/**
 * What the workload runs, copied onto billing records so `/billing/*` filters by template and image keep working
 * after the Pod, endpoint or template is gone. Optional: when absent the aggregator reads them from the Pod row.
 */
const workload = {
  templateId: z.string().min(1).nullable().optional(),
  imageName: z.string().min(1).max(512).nullable().optional(),
};

/** Disk a Pod keeps while it exists, billed also while it is stopped. */
const podDisk = {
  containerDiskInGb: z.number().int().min(0),
  volumeInGb: z.number().int().min(0),
};

export const podUsageEventSchema = z.object({
  ...base,
  type: z.enum(['pod.started', 'pod.stopped', 'pod.terminated']),
  podId: z.string().min(1),
  ...compute,
  ...workload,
  ...podDisk,
});

export const workerUsageEventSchema = z.object({
  ...base,
  type: z.enum(['worker.started', 'worker.stopped']),
  endpointId: z.string().min(1),
  /** The worker's Pod id (workers are Pods with an endpointId). */
  workerId: z.string().min(1),
  ...compute,
  ...workload,
});

export const volumeUsageEventSchema = z.object({
  ...base,
  type: z.enum(['volume.created', 'volume.resized', 'volume.deleted']),
  networkVolumeId: z.string().min(1),
  dataCenterId: z.string().min(1),
  /** Size after the transition (for `volume.deleted`, the size it had). */
  sizeGb: z.number().int().min(0),
});

/**
 * `job.billed`: one caller's finished job on a public endpoint, billed to the caller (`accountId`) once: execution
 * time x the worker's `costPerHr`, or `pricePerRequest` when the publication sets one. `occurredAt` is when the job
 * was metered (just after it finished); the billed interval is the `executionMs` before it.
 */
export const publicJobUsageEventSchema = z.object({
  ...base,
  type: z.enum(['job.billed']),
  jobId: z.string().min(1),
  /** The public model's name: the caller's billing records show it as the endpoint. */
  model: z.string().min(1),
  executionMs: z.number().int().min(0),
  /** USD per hour of the worker that ran the job ("0" with a per-request price). */
  costPerHr: decimalString,
  pricePerRequest: decimalString.nullable(),
});

/** Any usage event, told apart by `type`. */
export const usageEventSchema = z.union([
  podUsageEventSchema,
  workerUsageEventSchema,
  volumeUsageEventSchema,
  publicJobUsageEventSchema,
]);

export type PodUsageEvent = z.infer<typeof podUsageEventSchema>;
export type WorkerUsageEvent = z.infer<typeof workerUsageEventSchema>;
export type VolumeUsageEvent = z.infer<typeof volumeUsageEventSchema>;
export type PublicJobUsageEvent = z.infer<typeof publicJobUsageEventSchema>;
export type UsageEvent = z.infer<typeof usageEventSchema>;
export type UsageEventType = UsageEvent['type'];
