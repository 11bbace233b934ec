import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Principal } from '@runplane/contracts';
import { type ApiKeyAuthenticator, PlainRoutes, type RouteGroup } from '@runplane/http';
import { clientRoutes } from '../client/client-routes';
import type { JobApiService, JobRouterEngine } from '../client/job-api.service';
import type { JobRouterConfig } from '../config';
import type { EndpointLimits } from '../limits/endpoint-limits';
import { openAiRoutes } from '../openai';
import { type PublicModelCatalog, publicModelRoutes } from '../public/public-model-routes';
import type { WorkerAuthenticator } from '../worker/worker-auth';
import { workerRoutes } from '../worker/worker-routes';
import type { WorkerIdentity } from '../worker-tokens';
import { bodyLimitOf, type BodyLimits } from './body-limits';
import { type ClientPolicy, ClientGuards, type WorkerPolicy, WorkerGuards } from './job-api-guards';

/** Every route of the job API, in its group: client routes (OpenAI's included) and the worker protocol. */
export interface JobApiRouteTable {
  client: RouteGroup<ClientPolicy, Principal>;
  worker: RouteGroup<WorkerPolicy, WorkerIdentity>;
  bodyLimits: BodyLimits;
}

/** Injection token for the JobApiRouteTable. */
export const JOB_API_ROUTES = Symbol('JOB_API_ROUTES');

/** What the job API's routes are built on. */
export interface JobApiRouteDeps {
  jobs: JobApiService;
  engine: JobRouterEngine;
  apiKeys: ApiKeyAuthenticator;
  limits: EndpointLimits;
  workerAuth: WorkerAuthenticator;
  /** The public models (`GET /v2/public-endpoints`). */
  models: PublicModelCatalog;
}

/** The job API's route table on its services, with the body limits, waits and guards of `config`. */
export function jobApiRouteTable(deps: JobApiRouteDeps, config: JobRouterConfig): JobApiRouteTable {
  return {
    client: {
      guards: new ClientGuards(deps.apiKeys, deps.limits),
      routes: [
        ...clientRoutes(deps.jobs, { streamWaitMs: config.JOB_STREAM_WAIT_MS }),
        ...openAiRoutes(deps.jobs),
        ...publicModelRoutes(deps.models),
      ],
    },
    worker: {
      guards: new WorkerGuards(deps.workerAuth),
      routes: workerRoutes(deps.engine, { waitMs: config.JOB_TAKE_WAIT_MS }),
    },
    bodyLimits: {
      run: config.JOB_RUN_MAX_BYTES,
      runsync: config.JOB_RUNSYNC_MAX_BYTES,
      other: config.JOB_OTHER_MAX_BYTES,
    },
  };
}

/**
 * Serves the job API while the app initialises (before Fastify is ready): every route through the one plain-route
 * pipeline of libs/http (guards, schemas, handler, the app's error handler), every body as JSON within its route's limit.
 */
@Injectable()
export class JobApiRoutes implements OnModuleInit {
  constructor(
    @Inject(PlainRoutes) private readonly http: PlainRoutes,
    @Inject(JOB_API_ROUTES) private readonly table: JobApiRouteTable,
  ) {}

  onModuleInit(): void {
    this.http.acceptJsonBodies(bodyLimitOf(this.table.bodyLimits));
    this.http.serve(this.table.client);
    this.http.serve(this.table.worker);
  }
}
