import { JOB_TRACEPARENT, type JobEngine, type TakenJob } from '@runplane/jobs';
import { spansRecorded, withSpanInTrace } from '@runplane/observability';
import type { WorkerIdentity } from '../worker-tokens';

/**
 * Spans of a job's trace from the worker protocol. A job's trace is the one it was submitted in (its record keeps
 * the traceparent). A worker's request is a span of the worker's trace when it sends `traceparent`, else of a trace
 * of its own: the job's span is a child of the request's span when the worker continued the job's trace (it sent the
 * job's traceparent back), and otherwise a child of the job's submission linked to the request's span. RunPod's
 * worker SDKs send no traceparent, or one of their own polling loop's, which knows no job: a link keeps both traces
 * whole.
 */

function attributesOf(caller: WorkerIdentity, jobId: string): Record<string, string> {
  return { 'runplane.endpoint_id': caller.endpointId, 'runplane.worker_id': caller.workerId, 'runplane.job_id': jobId };
}

/** One `job.take` span per job a take answered with, from when the take began until now. */
export async function traceTakes(caller: WorkerIdentity, jobs: TakenJob[], startTime: number): Promise<void> {
  if (!spansRecorded()) return;
  for (const job of jobs) {
    const options = { attributes: attributesOf(caller, job.id), startTime };
    await withSpanInTrace(job[JOB_TRACEPARENT], 'job.take', async () => undefined, options);
  }
}

/**
 * Runs a worker's report on a job (`job.done`, `job.stream`) in a span of the job's trace; when spans go nowhere, just
 * runs it (without reading the job's trace context).
 */
export async function inJobTrace<T>(
  engine: JobEngine,
  caller: WorkerIdentity,
  { jobId, name }: { jobId: string; name: string },
  fn: () => Promise<T>,
): Promise<T> {
  if (!spansRecorded()) return fn();
  const traceparent = await engine.traceparent(caller.endpointId, jobId);
  return withSpanInTrace(traceparent, name, fn, { attributes: attributesOf(caller, jobId) });
}
