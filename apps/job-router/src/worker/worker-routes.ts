import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  jobDoneInput,
  jobDoneQuery,
  jobStreamInput,
  jobTakeBatchQuery,
  jobTakeQuery,
  pingQuery,
} from '@runplane/contracts';
import { parseInput } from '@runplane/http';
import type { JobEngine } from '@runplane/jobs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { disconnectSignal, type JobRouteParams, noContent } from '../http/plain-route';
import { JOB_ENGINE } from '../tokens';
import type { WorkerIdentity } from '../worker-tokens';
import { WorkerAuthenticator } from './worker-auth';

/** How long job-take and job-stop hold an empty answer (config JOB_TAKE_WAIT_MS). */
export const WORKER_POLL_WAIT = Symbol('WORKER_POLL_WAIT');

type WorkerHandler = (worker: WorkerIdentity, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * The worker protocol (RunPod's worker SDK): job-take, job-take-batch, job-done, job-stream, ping, job-stop, as plain
 * Fastify routes (see plain-route.ts). Every success is 200 with JSON, an empty long-poll 204 with no body.
 */
@Injectable()
export class WorkerRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(JOB_ENGINE) private readonly engine: JobEngine,
    @Inject(WorkerAuthenticator) private readonly auth: WorkerAuthenticator,
    @Inject(WORKER_POLL_WAIT) private readonly waitMs: number,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const { engine, waitMs } = this;
    this.route(fastify, 'GET', 'job-take/:workerId', async (worker, request, reply) => {
      parseInput(jobTakeQuery, request.query ?? {});
      const jobs = await engine.take(worker.endpointId, worker.workerId, 1, waitMs, disconnectSignal(reply));
      return jobs.length > 0 ? jobs[0] : noContent(reply);
    });
    this.route(fastify, 'GET', 'job-take-batch/:workerId', async (worker, request, reply) => {
      const query = parseInput(jobTakeBatchQuery, request.query ?? {});
      const jobs = await engine.take(
        worker.endpointId,
        worker.workerId,
        query.batch_size,
        waitMs,
        disconnectSignal(reply),
      );
      return jobs.length > 0 ? jobs : noContent(reply);
    });
    this.route(fastify, 'POST', 'job-done/:workerId/:jobId', async (worker, request) => {
      parseInput(jobDoneQuery, request.query ?? {});
      const body = parseInput(jobDoneInput, request.body ?? {});
      await engine.complete(worker.endpointId, worker.workerId, jobIdOf(request), body);
      return {};
    });
    this.route(fastify, 'POST', 'job-stream/:workerId/:jobId', async (worker, request) => {
      const body = parseInput(jobStreamInput, request.body ?? {});
      await engine.appendStream(worker.endpointId, worker.workerId, jobIdOf(request), body.output);
      return {};
    });
    this.route(fastify, 'GET', 'ping/:workerId', async (worker, request) => {
      const query = parseInput(pingQuery, request.query ?? {});
      if (query.status === 'unhealthy') {
        // A failed fitness check, reported once before the worker exits: not a sign of life. The scheduler marks the
        // worker unhealthy with this reason and replaces it.
        request.log.warn(
          { ...worker, check: query.check, reason: query.reason },
          'worker reported a failed fitness check',
        );
        await engine.unhealthy(worker.endpointId, worker.workerId, fitnessFailure(query.check, query.reason));
        return {};
      }
      await engine.heartbeat(worker.endpointId, worker.workerId, reportedJobs(query.job_id, query.runpod_version));
      return {};
    });
    this.route(fastify, 'GET', 'job-stop/:workerId', async (worker, _request, reply) => {
      const ids = await engine.stopRequests(worker.endpointId, worker.workerId, waitMs, disconnectSignal(reply));
      return ids.length > 0 ? { jobsToStop: ids } : noContent(reply);
    });
  }

  /** A worker route: the worker is authenticated for the path's endpoint and worker id before `handle` runs. */
  private route(fastify: FastifyInstance, method: 'GET' | 'POST', path: string, handle: WorkerHandler): void {
    fastify.route({
      method,
      url: `/v2/:endpointId/${path}`,
      handler: async (request, reply) => {
        const { endpointId, workerId = '' } = request.params as JobRouteParams;
        const worker = await this.auth.authenticate(request.headers.authorization, endpointId, workerId);
        return handle(worker, request, reply);
      },
    });
  }
}

function jobIdOf(request: FastifyRequest): string {
  return (request.params as JobRouteParams).jobId ?? '';
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
