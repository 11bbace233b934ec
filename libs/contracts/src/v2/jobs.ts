import { z } from 'zod';
import { queryInt } from '../v1/common';
import { waitingReasonDto } from '../waiting';

/** Shortest and longest executionTimeout a job may ask for (ms): 5 s to 7 days. */
export const EXECUTION_TIMEOUT_RANGE_MS = { min: 5_000, max: 7 * 24 * 3_600_000 } as const;
/** Shortest and longest ttl a job may ask for (ms): 10 s to 7 days. */
export const JOB_TTL_RANGE_MS = { min: 10_000, max: 7 * 24 * 3_600_000 } as const;
/** How long /runsync and /status-sync may hold a request (ms), and their default. */
export const SYNC_WAIT_RANGE_MS = { min: 1_000, max: 300_000, default: 90_000 } as const;

const webhookUrl = z
  .string()
  .max(2048)
  // Kept in Postgres with the job's deliveries, which cannot hold NUL.
  .refine((value) => !value.includes('\u0000'), { error: 'must not contain NUL characters' })
  .refine((value) => {
    try {
      const { protocol } = new URL(value);
      return protocol === 'http:' || protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http(s) URL');

/** RunPod's per-job `policy`. */
export const jobPolicyInput = z.strictObject({
  executionTimeout: z.number().int().min(EXECUTION_TIMEOUT_RANGE_MS.min).max(EXECUTION_TIMEOUT_RANGE_MS.max).optional(),
  lowPriority: z.boolean().optional(),
  ttl: z.number().int().min(JOB_TTL_RANGE_MS.min).max(JOB_TTL_RANGE_MS.max).optional(),
});

/**
 * Body of /run and /runsync: `input` is required; any other top-level key (s3Config, webhookV2, ...) is handed
 * to the worker as it came, so the object is loose.
 */
export const runJobInput = z.looseObject({
  input: z.record(z.string(), z.unknown(), { error: 'required, an object' }),
  webhook: webhookUrl.optional(),
  policy: jobPolicyInput.optional(),
  s3Config: z.record(z.string(), z.unknown()).optional(),
});
/** Parsed /run body. */
export type RunJobInput = z.infer<typeof runJobInput>;

/** `?wait=` of /runsync and /status-sync (ms). */
export const syncWaitQuery = z.object({
  wait: queryInt(SYNC_WAIT_RANGE_MS.min, SYNC_WAIT_RANGE_MS.max).default(SYNC_WAIT_RANGE_MS.default),
});

/** `?wait=` of /stream (ms); its default hold is the service's own. */
export const streamWaitQuery = z.object({ wait: queryInt(SYNC_WAIT_RANGE_MS.min, SYNC_WAIT_RANGE_MS.max).optional() });

/** `?ttl=` of /status (ms): sets the job's time-to-live. */
export const statusQuery = z.object({ ttl: queryInt(JOB_TTL_RANGE_MS.min, JOB_TTL_RANGE_MS.max).optional() });

/** `?limit=` of /requests. */
export const requestsQuery = z.object({ limit: queryInt(1, 1000).default(100) });

const zeroOrOne = z.enum(['0', '1', 'true', 'false']).transform((value) => value === '1' || value === 'true');

/** Query of job-take (RunPod's worker SDK also sends e.g. `gpu=`, which is ignored). */
export const jobTakeQuery = z.object({ job_in_progress: zeroOrOne.optional() });

/** Query of job-take-batch. */
export const jobTakeBatchQuery = jobTakeQuery.extend({ batch_size: queryInt(1, 1000).default(1) });

/** Query of job-done and job-stream. */
export const jobDoneQuery = z.object({ isStream: zeroOrOne.default(false) });

/** Query of ping: `job_id` is a comma-separated list of the jobs the worker holds. */
export const pingQuery = z.object({
  job_id: z
    .string()
    .max(100_000)
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  runpod_version: z.string().max(100).optional(),
  /** `unhealthy` with `check` and `reason`: RunPod's worker SDK reports a failed fitness check before it exits. */
  status: z.string().max(100).optional(),
  check: z.string().max(200).optional(),
  reason: z.string().max(1000).optional(),
});

/** Body of job-done: a result, an error, a progress update (`status: "IN_PROGRESS"`), maybe `stopPod`. */
export const jobDoneInput = z.looseObject({
  output: z.unknown().optional(),
  error: z.unknown().optional(),
  status: z.string().max(100).optional(),
  stopPod: z.boolean().optional(),
});

/** Body of job-stream: one chunk. */
export const jobStreamInput = z.looseObject({ output: z.unknown() });

/** A job status on the wire. */
export const jobStatusSchema = z.enum(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);

/** The job record of /status, /runsync, /status-sync. */
export const jobRecordSchema = z.object({
  id: z.string(),
  status: jobStatusSchema,
  delayTime: z.number().optional(),
  executionTime: z.number().optional(),
  output: z.unknown().optional(),
  error: z.string().optional(),
  workerId: z.string().optional(),
  retries: z.number().int(),
});

/** Answer of /run, /cancel, /retry. */
export const jobRefSchema = z.object({ id: z.string(), status: jobStatusSchema });

/** Answer of /stream. */
export const streamResponseSchema = z.object({
  status: jobStatusSchema,
  stream: z.array(z.object({ output: z.unknown() })),
});

/** Answer of /purge-queue. */
export const purgeQueueResponseSchema = z.object({ removed: z.number().int(), status: z.literal('completed') });

/** Answer of /health. */
export const endpointHealthSchema = z.object({
  jobs: z.object({
    completed: z.number().int(),
    failed: z.number().int(),
    inProgress: z.number().int(),
    inQueue: z.number().int(),
    retried: z.number().int(),
  }),
  workers: z.object({
    idle: z.number().int(),
    running: z.number().int(),
    initializing: z.number().int(),
    throttled: z.number().int(),
    unhealthy: z.number().int(),
  }),
  /** Runplane's: why the queued jobs wait, while some are (the same reason `/status` gives an `IN_QUEUE` job). */
  waitingReason: waitingReasonDto.optional(),
});
/** /health body. */
export type EndpointHealth = z.infer<typeof endpointHealthSchema>;

/**
 * Answer of /metrics (read by RunPod's Flash): the workers taking jobs by id (`readyWorkers`, idle or running, by
 * heartbeat) and the /health worker counts plus `ready`, their number.
 */
export const endpointMetricsSchema = z.object({
  readyWorkers: z.array(z.string()),
  workers: endpointHealthSchema.shape.workers.extend({ ready: z.number().int() }),
});
/** /metrics body. */
export type EndpointMetrics = z.infer<typeof endpointMetricsSchema>;

/** Answer of job-stop when something must stop. */
export const jobsToStopSchema = z.object({ jobsToStop: z.array(z.string()) });
