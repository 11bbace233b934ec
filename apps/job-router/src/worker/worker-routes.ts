import {
  jobDoneInput,
  jobDoneQuery,
  jobStreamInput,
  jobTakeBatchQuery,
  jobTakeQuery,
  pingQuery,
} from '@runplane/contracts';
import { type FastifyReply, longPollSignal, noContent, type PlainRoute, routeDeclarer } from '@runplane/http';
import type { JobEngine, TakenJob } from '@runplane/jobs';
import type { WorkerPolicy } from '../http/job-api-guards';
import type { WorkerIdentity } from '../worker-tokens';
import { inJobTrace, traceTakes } from './job-spans';

/** A route of the worker protocol, declared for the worker guard. */
const workerRoute = routeDeclarer<WorkerPolicy, WorkerIdentity>();

type WorkerRoute = PlainRoute<WorkerPolicy, WorkerIdentity>;

/** How the worker protocol holds its long-polls. */
export interface WorkerRouteOptions {
  /** How long job-take and job-stop hold an empty answer (config JOB_TAKE_WAIT_MS). */
  waitMs: number;
}

/**
 * The answer to a take once it ends: `body` of its jobs, or 204 when none came within the wait. Chained rather than
 * awaited, so a parked take keeps no suspended frame of its handler.
 */
function answerTake<T>(
  taking: Promise<TakenJob[]>,
  { caller, reply, startTime }: { caller: WorkerIdentity; reply: FastifyReply; startTime: number },
  body: (jobs: TakenJob[]) => T,
): Promise<T | FastifyReply> {
  return taking.then(async (jobs) => {
    await traceTakes(caller, jobs, startTime);
    return jobs.length > 0 ? body(jobs) : noContent(reply);
  });
}

/** job-take and job-take-batch: a 200 with the job(s), or 204 when none came within the wait. */
function takeRoutes(engine: JobEngine, { waitMs }: WorkerRouteOptions): WorkerRoute[] {
  return [
    workerRoute({
      method: 'GET',
      url: '/v2/:endpointId/job-take/:workerId',
      policy: 'worker',
      query: jobTakeQuery,
      handle: ({ caller, reply }) => {
        const { endpointId, workerId } = caller;
        const startTime = Date.now();
        const taking = engine.take({ endpointId, workerId, count: 1, waitMs, signal: longPollSignal(reply) });
        return answerTake(taking, { caller, reply, startTime }, (jobs) => jobs[0]);
      },
    }),
    workerRoute({
      method: 'GET',
      url: '/v2/:endpointId/job-take-batch/:workerId',
      policy: 'worker',
      query: jobTakeBatchQuery,
      handle: ({ caller, query, reply }) => {
        const { endpointId, workerId } = caller;
        const signal = longPollSignal(reply);
        const startTime = Date.now();
        const taking = engine.take({ endpointId, workerId, count: query.batch_size, waitMs, signal });
        return answerTake(taking, { caller, reply, startTime }, (jobs) => jobs);
      },
    }),
  ];
}

/** job-done and job-stream: a job's result and its streamed output. */
function resultRoutes(engine: JobEngine): WorkerRoute[] {
  return [
    workerRoute({
      method: 'POST',
      url: '/v2/:endpointId/job-done/:workerId/:jobId',
      policy: 'worker',
      query: jobDoneQuery,
      body: jobDoneInput,
      handle: async ({ caller, params, body }) => {
        const jobId = params.jobId ?? '';
        const done = () => engine.complete(caller.endpointId, caller.workerId, jobId, body);
        await inJobTrace(engine, caller, { jobId, name: 'job.done' }, done);
        return {};
      },
    }),
    workerRoute({
      method: 'POST',
      url: '/v2/:endpointId/job-stream/:workerId/:jobId',
      policy: 'worker',
      body: jobStreamInput,
      handle: async ({ caller, params, body }) => {
        const jobId = params.jobId ?? '';
        const append = () => engine.appendStream(caller.endpointId, caller.workerId, jobId, body.output);
        await inJobTrace(engine, caller, { jobId, name: 'job.stream' }, append);
        return {};
      },
    }),
  ];
}

/** ping (a sign of life, or a failed fitness check) and job-stop (the jobs the worker should stop). */
function presenceRoutes(engine: JobEngine, { waitMs }: WorkerRouteOptions): WorkerRoute[] {
  return [
    workerRoute({
      method: 'GET',
      url: '/v2/:endpointId/ping/:workerId',
      policy: 'worker',
      query: pingQuery,
      handle: async ({ caller, query, request }) => {
        if (query.status === 'unhealthy') {
          // A failed fitness check, reported once before the worker exits: not a sign of life. The scheduler marks the
          // worker unhealthy with this reason and replaces it.
          const report = { ...caller, check: query.check, reason: query.reason };
          request.log.warn(report, 'worker reported a failed fitness check');
          await engine.unhealthy(caller.endpointId, caller.workerId, fitnessFailure(query.check, query.reason));
          return {};
        }
        await engine.heartbeat(caller.endpointId, caller.workerId, reportedJobs(query.job_id, query.runpod_version));
        return {};
      },
    }),
    workerRoute({
      method: 'GET',
      url: '/v2/:endpointId/job-stop/:workerId',
      policy: 'worker',
      handle: async ({ caller, reply }) => {
        const ids = await engine.stopRequests(caller.endpointId, caller.workerId, waitMs, longPollSignal(reply));
        return ids.length > 0 ? { jobsToStop: ids } : noContent(reply);
      },
    }),
  ];
}

/**
 * The worker protocol (RunPod's worker SDK): job-take, job-take-batch, job-done, job-stream, ping, job-stop, each
 * through the worker guard (a worker token of the path's worker, or an ALL-scope key of the endpoint's owner). Every
 * success is 200 with JSON, an empty long-poll 204 with no body.
 */
export function workerRoutes(engine: JobEngine, options: WorkerRouteOptions): WorkerRoute[] {
  return [...takeRoutes(engine, options), ...resultRoutes(engine), ...presenceRoutes(engine, options)];
}

/**
 * The jobs a ping says the worker holds, or undefined when it says nothing of them: RunPod's worker SDK 1.7.1 pings
 * without `job_id` even while it runs jobs (fixed in 1.7.2), so its silence must not have them taken back.
 */
function reportedJobs(jobIds: string[], runpodVersion: string | undefined): string[] | undefined {
  return jobIds.length === 0 && runpodVersion === '1.7.1' ? undefined : jobIds;
}

/** The reason shown for a worker that failed a fitness check, e.g. `Fitness check gpu_present failed: no CUDA device`. */
function fitnessFailure(check: string | undefined, reason: string | undefined): string {
  const what = check ? `Fitness check ${check} failed` : 'Fitness check failed';
  return reason ? `${what}: ${reason}` : what;
}
