import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type Principal, runJobInput, statusQuery, syncWaitQuery, ValidationError } from '@runplane/contracts';
import {
  API_KEY_AUTHENTICATOR,
  type ApiKeyAuthenticator,
  authorizeApiKey,
  parseInput,
  type RouteAccess,
} from '@runplane/http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { JobRouteParams } from '../http/plain-route';
import { EndpointLimits } from '../limits/endpoint-limits';
import type { LimitedOperation } from '../limits/limit-table';
import { JobApiService } from './job-api.service';

type ClientHandler = (principal: Principal, endpointId: string, request: FastifyRequest) => Promise<unknown>;

/** One plain client route: what it does (the key scopes it admits) and which limits it counts against. */
interface ClientRoute {
  method: 'GET' | 'POST';
  path: string;
  operation: LimitedOperation;
  access: RouteAccess | ((request: FastifyRequest) => RouteAccess);
  handle: ClientHandler;
}

/** /status with `?ttl=` moves the job's deletion time, a write; without it, it only reads. */
function statusAccess(request: FastifyRequest): RouteAccess {
  return (request.query as Record<string, unknown> | undefined)?.ttl === undefined ? 'read' : 'write';
}

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
    @Inject(EndpointLimits) private readonly limits: EndpointLimits,
    @Inject(API_KEY_AUTHENTICATOR) private readonly apiKeys: ApiKeyAuthenticator,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const { jobs } = this;
    const run: ClientHandler = (principal, endpointId, request) => {
      const body = parseInput(runJobInput, request.body ?? {});
      return jobs.run(principal, endpointId, body, idempotencyKeyOf(request.headers['idempotency-key']));
    };
    const runSync: ClientHandler = (principal, endpointId, request) => {
      const body = parseInput(runJobInput, request.body ?? {});
      const query = parseInput(syncWaitQuery, request.query ?? {});
      return jobs.runSync(principal, endpointId, body, query.wait);
    };
    const status: ClientHandler = (principal, endpointId, request) => {
      const query = parseInput(statusQuery, request.query ?? {});
      return jobs.status(principal, endpointId, jobIdOf(request), query.ttl);
    };
    this.route(fastify, { method: 'POST', path: 'run', operation: 'run', access: 'write', handle: run });
    this.route(fastify, { method: 'POST', path: 'runsync', operation: 'runsync', access: 'write', handle: runSync });
    for (const method of ['GET', 'POST'] as const) {
      this.route(fastify, { method, path: 'status/:jobId', operation: 'status', access: statusAccess, handle: status });
    }
  }

  /**
   * A client route of one limited operation: API key and its scope for what the route does first, then the limits of
   * the key's own endpoint (a concurrency slot held until the answer is ready), then `handle`. Same order as the Nest
   * routes: guard, interceptor, pipes, handler.
   */
  private route(fastify: FastifyInstance, { method, path, operation, access, handle }: ClientRoute): void {
    fastify.route({
      method,
      url: `/v2/:endpointId/${path}`,
      handler: async (request) => {
        const { endpointId } = request.params as JobRouteParams;
        const does = typeof access === 'function' ? access(request) : access;
        const principal = await authorizeApiKey(this.apiKeys, request.headers.authorization, does, endpointId);
        const release = await this.limits.acquire(principal, endpointId, operation);
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
