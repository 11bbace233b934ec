import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { jobDoneInput, jobDoneQuery, jobStreamInput, jobTakeBatchQuery, jobTakeQuery, pingQuery } from '@runplane/contracts';
import { ZodPipe } from '@runplane/http';
import type { JobEngine, TakenJob } from '@runplane/jobs';
import { JOB_ENGINE } from '../tokens';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import type { WorkerIdentity } from '../worker-tokens';
import { CurrentWorker, WorkerAuthGuard } from './worker-auth.guard';

/** How long job-take and job-stop hold an empty answer (config JOB_TAKE_WAIT_MS). */
export const WORKER_POLL_WAIT = Symbol('WORKER_POLL_WAIT');

/** Aborts when the worker hangs up before its long-poll is answered, so the engine stops holding a job for it. */
function disconnectSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The worker protocol (RunPod's worker SDK): job-take, job-take-batch, job-done, job-stream, ping, job-stop. */
@Controller('v2/:endpointId')
@UseGuards(WorkerAuthGuard)
export class WorkerController {
  constructor(
    @Inject(JOB_ENGINE) private readonly engine: JobEngine,
    @Inject(WORKER_POLL_WAIT) private readonly waitMs: number,
  ) {}

  @Get('job-take/:workerId')
  async take(
    @CurrentWorker() worker: WorkerIdentity,
    @Query(new ZodPipe(jobTakeQuery)) _query: z.infer<typeof jobTakeQuery>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TakenJob | undefined> {
    const jobs = await this.engine.take(worker.endpointId, worker.workerId, 1, this.waitMs, disconnectSignal(reply));
    if (jobs.length === 0) void reply.status(204);
    return jobs[0];
  }

  @Get('job-take-batch/:workerId')
  async takeBatch(
    @CurrentWorker() worker: WorkerIdentity,
    @Query(new ZodPipe(jobTakeBatchQuery)) query: z.infer<typeof jobTakeBatchQuery>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TakenJob[] | undefined> {
    const { endpointId, workerId } = worker;
    const jobs = await this.engine.take(endpointId, workerId, query.batch_size, this.waitMs, disconnectSignal(reply));
    if (jobs.length > 0) return jobs;
    void reply.status(204);
    return undefined;
  }

  @Post('job-done/:workerId/:jobId')
  @HttpCode(200)
  async done(
    @CurrentWorker() worker: WorkerIdentity,
    @Param('jobId') jobId: string,
    @Query(new ZodPipe(jobDoneQuery)) _query: z.infer<typeof jobDoneQuery>,
    @Body(new ZodPipe(jobDoneInput)) body: z.infer<typeof jobDoneInput>,
  ): Promise<Record<string, never>> {
    await this.engine.complete(worker.endpointId, worker.workerId, jobId, body);
    return {};
  }

  @Post('job-stream/:workerId/:jobId')
  @HttpCode(200)
  async stream(
    @CurrentWorker() worker: WorkerIdentity,
    @Param('jobId') jobId: string,
    @Body(new ZodPipe(jobStreamInput)) body: z.infer<typeof jobStreamInput>,
  ): Promise<Record<string, never>> {
    await this.engine.appendStream(worker.endpointId, worker.workerId, jobId, body.output);
    return {};
  }

  @Get('ping/:workerId')
  async ping(
    @CurrentWorker() worker: WorkerIdentity,
    @Query(new ZodPipe(pingQuery)) query: z.infer<typeof pingQuery>,
  ): Promise<Record<string, never>> {
    await this.engine.heartbeat(worker.endpointId, worker.workerId, query.job_id);
    return {};
  }

  @Get('job-stop/:workerId')
  async stop(
    @CurrentWorker() worker: WorkerIdentity,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ jobsToStop: string[] } | undefined> {
    const ids = await this.engine.stopRequests(worker.endpointId, worker.workerId, this.waitMs, disconnectSignal(reply));
    if (ids.length > 0) return { jobsToStop: ids };
    void reply.status(204);
    return undefined;
  }
}
