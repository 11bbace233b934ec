import { Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  type EndpointHealth,
  type EndpointMetrics,
  type Principal,
  requestsQuery,
  streamWaitQuery,
  syncWaitQuery,
} from '@runplane/contracts';
import type { JobRecord, StreamRead } from '@runplane/jobs';
import { Authenticated, CurrentPrincipal, EndpointScoped, Reads, Writes, ZodPipe } from '@runplane/http';
import type { z } from 'zod';
import { RateLimited } from '../limits/rate-limit.interceptor';
import { JobApiService, type JobRef } from './job-api.service';

/** Default hold of an empty /stream poll (config JOB_STREAM_WAIT_MS). */
export const STREAM_DEFAULT_WAIT = Symbol('STREAM_DEFAULT_WAIT');

/**
 * The client job API (RunPod's /v2/{endpointId}/...) but its busiest routes (/run, /runsync, /status), which
 * ClientRoutes serves. Every success is exactly 200; status-sync and stream answer GET and POST because RunPod's
 * clients use both. A /stream read is a write: it hands each chunk out once, so a reader takes it from the job's client.
 */
@Controller('v2/:endpointId')
@Authenticated()
@EndpointScoped()
export class JobsController {
  constructor(
    @Inject(JobApiService) private readonly jobs: JobApiService,
    @Inject(STREAM_DEFAULT_WAIT) private readonly streamWaitMs: number,
  ) {}

  @Get('status-sync/:jobId')
  @RateLimited('status')
  @Reads()
  statusSync(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @Query(new ZodPipe(syncWaitQuery)) query: z.infer<typeof syncWaitQuery>,
  ): Promise<JobRecord> {
    return this.jobs.statusSync(principal, endpointId, jobId, query.wait);
  }

  @Post('status-sync/:jobId')
  @HttpCode(200)
  @RateLimited('status')
  @Reads()
  statusSyncPost(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @Query(new ZodPipe(syncWaitQuery)) query: z.infer<typeof syncWaitQuery>,
  ): Promise<JobRecord> {
    return this.jobs.statusSync(principal, endpointId, jobId, query.wait);
  }

  @Get('stream/:jobId')
  @RateLimited('stream')
  @Writes()
  stream(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @Query(new ZodPipe(streamWaitQuery)) query: z.infer<typeof streamWaitQuery>,
  ): Promise<StreamRead> {
    return this.jobs.stream(principal, endpointId, jobId, query.wait ?? this.streamWaitMs);
  }

  @Post('stream/:jobId')
  @HttpCode(200)
  @RateLimited('stream')
  @Writes()
  streamPost(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
    @Query(new ZodPipe(streamWaitQuery)) query: z.infer<typeof streamWaitQuery>,
  ): Promise<StreamRead> {
    return this.jobs.stream(principal, endpointId, jobId, query.wait ?? this.streamWaitMs);
  }

  @Post('cancel/:jobId')
  @HttpCode(200)
  @RateLimited('cancel')
  @Writes()
  cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
  ): Promise<JobRef> {
    return this.jobs.cancel(principal, endpointId, jobId);
  }

  @Post('retry/:jobId')
  @HttpCode(200)
  @RateLimited('run')
  @Writes()
  retry(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Param('jobId') jobId: string,
  ): Promise<JobRef> {
    return this.jobs.retry(principal, endpointId, jobId);
  }

  @Post('purge-queue')
  @HttpCode(200)
  @RateLimited('purge-queue')
  @Writes()
  purgeQueue(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
  ): Promise<{ removed: number; status: 'completed' }> {
    return this.jobs.purgeQueue(principal, endpointId);
  }

  @Get('health')
  @Reads()
  health(@CurrentPrincipal() principal: Principal, @Param('endpointId') endpointId: string): Promise<EndpointHealth> {
    return this.jobs.health(principal, endpointId);
  }

  @Get('metrics')
  @Reads()
  metrics(@CurrentPrincipal() principal: Principal, @Param('endpointId') endpointId: string): Promise<EndpointMetrics> {
    return this.jobs.metrics(principal, endpointId);
  }

  @Get('requests')
  @RateLimited('requests')
  @Reads()
  requests(
    @CurrentPrincipal() principal: Principal,
    @Param('endpointId') endpointId: string,
    @Query(new ZodPipe(requestsQuery)) query: z.infer<typeof requestsQuery>,
  ): Promise<JobRecord[]> {
    return this.jobs.requests(principal, endpointId, query.limit);
  }
}
