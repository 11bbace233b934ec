import { envInt, loadConfigOrExit, z } from '@runplane/config';
import { serviceEnvSchema } from '@runplane/http';
import { loadBalancerEnv } from './load-balancer/load-balancer-config';
import { parseLimitOverrides } from './limits/limit-table';

const MiB = 1024 * 1024;

/**
 * JobRouter environment: the common service settings, the long-poll holds, the sweep interval and the rate and
 * concurrency limits. Fastify's own body limit sits above the largest per-route limit (job-router answers
 * oversized bodies itself, with RunPod's 400).
 */
export const jobRouterEnvSchema = serviceEnvSchema(8081).extend({
  BODY_LIMIT_BYTES: envInt({ min: 1024, max: 1024 * MiB, default: 21 * MiB }),
  /** Bytes a /run body may have (RunPod: 10 MB). */
  JOB_RUN_MAX_BYTES: envInt({ min: 1024, max: 1024 * MiB, default: 10 * MiB }),
  /** Bytes a /runsync, job-done or job-stream body may have (RunPod: 20 MB). */
  JOB_RUNSYNC_MAX_BYTES: envInt({ min: 1024, max: 1024 * MiB, default: 20 * MiB }),
  /** Bytes any other job-router body may have. */
  JOB_OTHER_MAX_BYTES: envInt({ min: 1024, max: 1024 * MiB, default: 1 * MiB }),
  /** How long job-take and job-stop hold an empty answer (RunPod's worker SDK waits up to 90 s). */
  JOB_TAKE_WAIT_MS: envInt({ min: 0, max: 85_000, default: 30_000 }),
  /**
   * How long /stream holds an empty answer when the caller gives no `?wait=`. Below 10 s: runpod-python's synchronous
   * `Job.stream()` polls without `wait` and gives up on a read that takes 10 s.
   */
  JOB_STREAM_WAIT_MS: envInt({ min: 0, max: 300_000, default: 8_000 }),
  /** How often the time-based job rules (ttl, retention, timeouts, lost workers) are applied; 0 = never. */
  JOB_SWEEP_INTERVAL_MS: envInt({ min: 0, max: 3_600_000, default: 1_000 }),
  /** Region suffix of job ids (`<uuid>-<region>`). */
  JOB_REGION: z
    .string()
    .regex(/^[a-z0-9]{1,8}$/, { error: 'expected 1-8 lowercase letters or digits' })
    .default('u1'),
  /** Expected worker ping interval; a worker silent for 3 intervals has its jobs re-queued. */
  JOB_HEARTBEAT_INTERVAL_MS: envInt({ min: 1_000, max: 3_600_000, default: 10_000 }),
  /** Times a job is re-queued after losing its worker before it fails. */
  JOB_MAX_RETRIES: envInt({ min: 0, max: 100, default: 3 }),
  /** Window of the request-rate limits (RunPod: 10 s). */
  JOB_RATE_WINDOW_MS: envInt({ min: 1_000, max: 3_600_000, default: 10_000 }),
  /** Requests per window each running worker adds to an endpoint's rate limit (effective = max(base, workers × this)). */
  JOB_RATE_PER_WORKER: envInt({ min: 0, max: 1_000_000, default: 100 }),
  /** Overrides of the base limits, e.g. `run=1000/200,purge-queue=2/0` (requests per window / concurrent; 0 = none). */
  JOB_RATE_LIMITS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      try {
        return parseLimitOverrides(value ?? '');
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  ...loadBalancerEnv,
});
/** Parsed job-router configuration. */
export type JobRouterConfig = z.infer<typeof jobRouterEnvSchema>;

/** Parses the process environment once; a bad value stops the process with a message naming it. */
export function loadJobRouterConfig(): JobRouterConfig {
  return loadConfigOrExit(jobRouterEnvSchema, process.env);
}
