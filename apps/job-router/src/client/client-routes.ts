import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type Principal, runJobInput, statusQuery, syncWaitQuery, ValidationError } from '@runplane/contracts';
import { API_KEY_AUTHENTICATOR, type ApiKeyAuthenticator, authorizeApiKey, parseInput } from '@runplane/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobRouteParams } from '../http/plain-route';
import { JobRateLimiter } from '../limits/job-rate-limiter';
import type { LimitedOperation } from '../limits/limit-table';
import { JobApiService } from './job-api.service';

type ClientHandler = (principal: Principal, endpointId: string, request: FastifyRequest) => Promise<unknown>;

function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value === '') return undefined;
  if (value.length > 255) throw new ValidationError('Idempotency-Key: must be at most 255 characters');
  return value;
}

function jobIdOf(request: FastifyRequest): string {
  return (request.params as JobRouteParams).jobId ?? '';
}

/**
 * The busiest client routes of the job API (/run, /runsync, /status on GET and POST) as plain Fastify routes (see
 * plain-route.ts); the others are JobsController's. Every success is exactly 200.
 */
@Injectable()
export class ClientRoutes implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(JobApiService) private readonly jobs: JobApiService,
    @Inject(JobRateLimiter) private readonly limiter: JobRateLimiter,
    @Inject(API_KEY_AUTHENTICATOR) private readonly apiKeys: ApiKeyAuthenticator,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const { jobs } = this;
    this.route(fastify, 'POST', 'run', 'run', (principal, endpointId, request) => {
      const body = parseInput(runJobInput, request.body ?? {});
      return jobs.run(principal, endpointId, body, idempotencyKeyOf(request.headers['idempotency-key']));
    });
    this.route(fastify, 'POST', 'runsync', 'runsync', (principal, endpointId, request) => {
      const body = parseInput(runJobInput, request.body ?? {});
      const query = parseInput(syncWaitQuery, request.query ?? {});
      return jobs.runSync(principal, endpointId, body, query.wait);
    });
    for (const method of ['GET', 'POST'] as const) {
      this.route(fastify, method, 'status/:jobId', 'status', (principal, endpointId, request) => {
        const query = parseInput(statusQuery, request.query ?? {});
        return jobs.status(principal, endpointId, jobIdOf(request), query.ttl);
      });
    }
  }

  /**
   * A client route of one limited operation: API key and scope first, then the endpoint's limits (a concurrency slot
   * held until the answer is ready), then `handle`. Same order as the Nest routes: guard, interceptor, pipes, handler.
   */
  private route(fastify: FastifyInstance, method: 'GET' | 'POST', path: string, operation: LimitedOperation, handle: ClientHandler): void {
    fastify.route({
      method,
      url: `/v2/:endpointId/${path}`,
      handler: async (request) => {
        const { endpointId } = request.params as JobRouteParams;
        const principal = await authorizeApiKey(this.apiKeys, request.headers.authorization, request.method, endpointId);
        const release = await this.limiter.acquire(endpointId, operation);
        try {
          return await handle(principal, endpointId, request);
        } finally {
          // Sent before the answer on the connection the next acquire uses, so a caller's next request finds it freed.
          void release().catch(() => undefined);
        }
      },
    });
  }
}
