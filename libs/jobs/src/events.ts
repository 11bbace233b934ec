/**
 * Signals the job engine appends to the Redis stream `<prefix>jobs:events` (XADD, capped near 10,000 entries) in
 * the same Lua step as the state change, for the autoscaler and billing. Every entry has `type` and `endpointId`:
 * - `job.queued` (jobId, lowPriority 0|1, retry 1 on /retry): a job entered the queue; lowPriority ones never scale up.
 * - `job.started` (jobId, workerId): a worker took the job.
 * - `job.finished` (jobId, status, workerId, queuedAt, takenAt, doneAt; ms, takenAt '' for a job no worker took): the
 *   job reached COMPLETED, FAILED, CANCELLED or TIMED_OUT. The same step writes the job's entry in the finished-jobs
 *   stream (protocol/finished.ts), from which the job-router's metrics take its delay and execution time.
 * - `job.requeued` (jobId, workerId, retries): its worker was lost, or the take it was handed to hung up before the
 *   answer left, and the job went back to the queue.
 * - `job.expired` (jobId, status): ttl or retention deleted the job.
 * - `worker.lost` (workerId): no heartbeat for 3 intervals.
 * - `worker.refresh` (workerId, reason when the engine asks): the worker is to be recycled: it asked (`stopPod`), or it
 *   did not stop a cancelled or timed-out job (it has no job-stop channel, as RunPod's worker SDK before 1.10.0).
 * - `worker.unhealthy` (workerId, reason): the worker reported itself unhealthy (a failed fitness check) and exits.
 * - `lb.demand`: a request to a load-balancing endpoint waits with no ready worker (written by the job-router through
 *   load-balancer-traffic.ts, not by the engine).
 */
export const JOB_EVENT_TYPES = [
  'job.queued',
  'job.started',
  'job.finished',
  'job.requeued',
  'job.expired',
  'worker.lost',
  'worker.refresh',
  'worker.unhealthy',
  'lb.demand',
] as const;

/** The stream is trimmed near this many entries (`XADD … MAXLEN ~`). */
export const JOB_EVENTS_MAX_LEN = 10_000;

/** One of {@link JOB_EVENT_TYPES}. */
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

/** The XADD field/value pairs of an event: `type`, `endpointId`, then `fields` (the Lua `emit` writes the same shape). */
export function eventEntry(type: JobEventType, endpointId: string, fields: Record<string, string>): string[] {
  return ['type', type, 'endpointId', endpointId, ...Object.entries(fields).flat()];
}
