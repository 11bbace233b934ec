import { randomUUID } from 'node:crypto';
import { ValidationError } from '@runplane/contracts';
import { flatString } from '@runplane/db';
import type { JobPolicy } from './engine';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Policy limits and defaults (RunPod's): every value in ms. */
export const JOB_POLICY_LIMITS = {
  executionTimeout: { min: 5 * SECOND, max: 7 * DAY, default: 600_000 },
  ttl: { min: 10 * SECOND, max: 7 * DAY, default: DAY },
} as const;

/** How long finished jobs stay readable: /run 30 min, /runsync 1 min (a longer runsync wait may raise it to 5 min). */
export const RESULT_RETENTION = { runMs: 30 * MINUTE, syncMs: MINUTE, syncMaxMs: 5 * MINUTE } as const;

/** How long an Idempotency-Key keeps returning its first job. */
export const IDEMPOTENCY_WINDOW_MS = DAY;

/** The `policy` object of a /run or /runsync body, as sent. */
export interface PolicyInput {
  executionTimeout?: number;
  ttl?: number;
  lowPriority?: boolean;
}

function checkRange(field: string, value: number, limits: { min: number; max: number }): number {
  if (!Number.isInteger(value) || value < limits.min || value > limits.max) {
    throw new ValidationError(`${field}: must be an integer number of ms between ${limits.min} and ${limits.max}`);
  }
  return value;
}

/** Checks a ttl in ms (10 s – 7 days); `field` names it in the error. */
export function checkTtl(ttlMs: number, field = 'ttl'): number {
  return checkRange(field, ttlMs, JOB_POLICY_LIMITS.ttl);
}

/** Checks an already resolved policy (a caller may have built it without {@link resolveJobPolicy}). */
export function checkPolicy(policy: JobPolicy): void {
  checkRange('policy.executionTimeout', policy.executionTimeoutMs, JOB_POLICY_LIMITS.executionTimeout);
  checkRange('policy.ttl', policy.ttlMs, JOB_POLICY_LIMITS.ttl);
}

/**
 * Resolves a job's policy: its own executionTimeout, else the endpoint's executionTimeoutMs, else 600000; ttl
 * default 24 h. Out-of-range values are ValidationErrors naming `policy.<field>`.
 */
export function resolveJobPolicy(
  input: PolicyInput | undefined,
  endpointExecutionTimeoutMs?: number | null,
): JobPolicy {
  const limits = JOB_POLICY_LIMITS;
  const executionTimeoutMs =
    input?.executionTimeout !== undefined
      ? checkRange('policy.executionTimeout', input.executionTimeout, limits.executionTimeout)
      : endpointExecutionTimeoutMs && endpointExecutionTimeoutMs > 0
        ? endpointExecutionTimeoutMs
        : limits.executionTimeout.default;
  const ttlMs = input?.ttl !== undefined ? checkTtl(input.ttl, 'policy.ttl') : limits.ttl.default;
  return { executionTimeoutMs, ttlMs, lowPriority: input?.lowPriority === true };
}

/** Retention for a /runsync job held `waitMs`: 1 min, raised to the wait itself up to 5 min. */
export function syncRetentionMs(waitMs: number): number {
  return Math.min(Math.max(RESULT_RETENTION.syncMs, waitMs), RESULT_RETENTION.syncMaxMs);
}

/** How a /runsync job's id begins, as RunPod's do. */
const SYNC_ID_PREFIX = 'sync-';

/** A new job id: `<uuid>-<region>`, `sync-<uuid>-<region>` for /runsync. */
export function newJobId(region: string, sync: boolean): string {
  return flatString(`${sync ? SYNC_ID_PREFIX : ''}${randomUUID()}-${region}`);
}

/** Whether a job id is a /runsync job's (see {@link newJobId}). */
export function isSyncJobId(jobId: string): boolean {
  return jobId.startsWith(SYNC_ID_PREFIX);
}
