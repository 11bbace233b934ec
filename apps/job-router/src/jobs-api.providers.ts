import { Inject, Injectable, Logger, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createAccountsServices } from '@runplane/accounts';
import type { DbClient } from '@runplane/db';
import { EndpointsRepository, PublicEndpointsRepository, WorkerStateStore } from '@runplane/endpoints';
import {
  API_KEY_AUTHENTICATOR,
  type ApiKeyAuthenticator,
  closingSignal,
  DB_CLIENT,
  PlainRoutes,
  REDIS_CLIENT,
} from '@runplane/http';
import {
  createQueueFreeRedis,
  createQueueOrderedRedis,
  LoadBalancerRequestCounts,
  LoadBalancerTraffic,
} from '@runplane/jobs';
import { closeRedis, createRedis, normalizePrefix, type Redis } from '@runplane/queue';
import { EndpointDirectory } from './client/endpoint-directory';
import {
  type JobApiOptions,
  type JobApiPorts,
  JobApiService,
  type JobRouterEngine,
  type SchedulerWorkerStates,
} from './client/job-api.service';
import { LoadBalancerHealth } from './client/load-balancer-health';
import type { JobRouterConfig } from './config';
import { JOB_API_ROUTES, jobApiRouteTable, JobApiRoutes } from './http/job-api-routes';
import { EndpointLimits } from './limits/endpoint-limits';
import { JobRateLimiter, type RunningWorkerCount } from './limits/job-rate-limiter';
import { PublicJobLedger } from './public/public-job-ledger';
import { PUBLIC_MODEL_CATALOG } from './public/public-providers';
import type { PublicModelCatalog } from './public/public-model-routes';
import { SWEEP_ERROR_SINK, SWEEP_INTERVAL_MS, EngineSweeper } from './sweeper';
import { JOB_ENGINE, LIMITS_REDIS, QUEUE_FREE_REDIS, QUEUE_ORDERED_REDIS } from './tokens';
import { WorkerAuthenticator } from './worker/worker-auth';
import { createWorkerTokensService, WorkerTokensService } from './worker-tokens';

/** What the job API is built from beyond the shared infrastructure. */
export interface JobsApiOptions {
  config: JobRouterConfig;
  /**
   * Builds the job engine on a Redis client without key prefix (BullMQ needs its own prefixing), which the module
   * owns and closes after the engine; tests pass an engine on a fake clock.
   */
  engine: (deps: { redis: Redis; commands: Redis; config: JobRouterConfig }) => JobRouterEngine;
  onSweepError?: (error: unknown) => void;
}

/**
 * Closes the Redis connections the job API opens besides BullMQ's (the engine's queue-free one and the limits') when
 * the app stops, after the engine, which closes before shutdown.
 */
@Injectable()
class JobApiRedisCloser implements OnApplicationShutdown {
  constructor(
    @Inject(QUEUE_FREE_REDIS) private readonly queueFree: Redis,
    @Inject(LIMITS_REDIS) private readonly limits: Redis,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([closeRedis(this.queueFree), closeRedis(this.limits)]);
  }
}

/** The engine on its two Redis connections, and the engine's sweep. */
export function engineProviders(options: JobsApiOptions): Provider[] {
  const { config } = options;
  return [
    // What each connection guarantees is the engine's rule: see EngineConnections in @runplane/jobs.
    { provide: QUEUE_ORDERED_REDIS, useFactory: () => createQueueOrderedRedis(config.REDIS_URL) },
    { provide: QUEUE_FREE_REDIS, useFactory: () => createQueueFreeRedis(config.REDIS_URL) },
    JobApiRedisCloser,
    {
      provide: JOB_ENGINE,
      inject: [QUEUE_ORDERED_REDIS, QUEUE_FREE_REDIS],
      useFactory: (redis: Redis, commands: Redis) => options.engine({ redis, commands, config }),
    },
    EngineSweeper,
    { provide: SWEEP_INTERVAL_MS, useValue: config.JOB_SWEEP_INTERVAL_MS },
    { provide: SWEEP_ERROR_SINK, useValue: options.onSweepError ?? logSweepError },
  ];
}

function logSweepError(error: unknown): void {
  new Logger('JobSweeper').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
}

/** Who may call: API keys, endpoints by owner, worker tokens. */
export function accessProviders(config: JobRouterConfig): Provider[] {
  return [
    {
      provide: API_KEY_AUTHENTICATOR,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) => createAccountsServices(db).apiKeys,
    },
    {
      provide: EndpointDirectory,
      inject: [DB_CLIENT],
      useFactory: (db: DbClient) =>
        new EndpointDirectory(new EndpointsRepository(db), {
          models: new PublicEndpointsRepository(db),
          lbDomain: config.RUNPLANE_LB_DOMAIN ?? null,
        }),
    },
    { provide: WorkerTokensService, inject: [DB_CLIENT], useFactory: (db: DbClient) => createWorkerTokensService(db) },
    {
      provide: WorkerAuthenticator,
      inject: [WorkerTokensService, API_KEY_AUTHENTICATOR, EndpointDirectory],
      useFactory: (tokens: WorkerTokensService, apiKeys: ApiKeyAuthenticator, endpoints: EndpointDirectory) =>
        new WorkerAuthenticator(tokens, apiKeys, endpoints),
    },
  ];
}

/**
 * The scheduler's counts of an endpoint's workers that do not run jobs yet (or no longer) and why its queued jobs
 * wait, from one read of its Redis state.
 */
function schedulerStates(redis: Redis): SchedulerWorkerStates {
  const states = new WorkerStateStore(redis);
  return {
    async read(endpointId: string) {
      const { counts, waiting } = await states.read(endpointId);
      return {
        counts: { initializing: counts.initializing, throttled: counts.throttled, unhealthy: counts.unhealthy },
        waiting,
      };
    },
  };
}

/** /health of load-balancing endpoints, from the job-routers' traffic and counters and the scheduler's worker states. */
function loadBalancerHealth(config: JobRouterConfig, queueRedis: Redis, redis: Redis): LoadBalancerHealth {
  return new LoadBalancerHealth({
    traffic: new LoadBalancerTraffic(queueRedis, config.REDIS_PREFIX),
    counts: new LoadBalancerRequestCounts(queueRedis, config.REDIS_PREFIX),
    states: new WorkerStateStore(redis),
  });
}

/** How the job API's service runs: until the server starts closing, with /health of load-balancing endpoints. */
const JOB_API_OPTIONS = Symbol('JOB_API_OPTIONS');

/** What the job API's service works with. */
const JOB_API_PORTS = Symbol('JOB_API_PORTS');

/** The job API's service, which answers until the server starts closing. */
export function jobApiServiceProviders(config: JobRouterConfig): Provider[] {
  return [
    {
      provide: JOB_API_OPTIONS,
      inject: [HttpAdapterHost, REDIS_CLIENT, QUEUE_FREE_REDIS],
      useFactory: (host: HttpAdapterHost, redis: Redis, queueRedis: Redis): JobApiOptions => ({
        closing: closingSignal(host.httpAdapter.getHttpServer()),
        loadBalancers: loadBalancerHealth(config, queueRedis, redis),
      }),
    },
    {
      provide: JOB_API_PORTS,
      inject: [JOB_ENGINE, EndpointDirectory, REDIS_CLIENT, PublicJobLedger, JobRateLimiter],
      useFactory: (
        engine: JobRouterEngine,
        endpoints: EndpointDirectory,
        redis: Redis,
        publicJobs: PublicJobLedger,
        limits: JobRateLimiter,
      ): JobApiPorts => ({ engine, endpoints, schedulerStates: schedulerStates(redis), publicJobs, limits }),
    },
    {
      provide: JobApiService,
      inject: [JOB_API_PORTS, JOB_API_OPTIONS],
      useFactory: (ports: JobApiPorts, options: JobApiOptions) => new JobApiService(ports, options),
    },
  ];
}

/**
 * The endpoints' rate and concurrency limits, on a connection of their own (see LIMITS_REDIS), but for the submitting
 * operations', counted on the connection their jobs are recorded on (the engine's queue-free one).
 */
export function limitProviders(config: JobRouterConfig): Provider[] {
  return [
    { provide: LIMITS_REDIS, useFactory: () => createRedis(config.REDIS_URL) },
    {
      provide: JobRateLimiter,
      inject: [LIMITS_REDIS, QUEUE_FREE_REDIS, JOB_ENGINE],
      useFactory: (redis: Redis, submissionRedis: Redis, engine: JobRouterEngine) => {
        const workers: RunningWorkerCount = {
          runningWorkers: async (id: string) => (await engine.workers(id)).running.length,
        };
        const limits = {
          windowMs: config.JOB_RATE_WINDOW_MS,
          perWorker: config.JOB_RATE_PER_WORKER,
          overrides: config.JOB_RATE_LIMITS,
          maxHoldMs: 310_000,
          keyPrefix: normalizePrefix(config.REDIS_PREFIX),
          submissionRedis,
        };
        return new JobRateLimiter(redis, limits, workers);
      },
    },
    {
      provide: EndpointLimits,
      inject: [EndpointDirectory, JobRateLimiter],
      useFactory: (endpoints: EndpointDirectory, limiter: JobRateLimiter) => new EndpointLimits(endpoints, limiter),
    },
  ];
}

const CLIENT_SERVICES = Symbol('CLIENT_SERVICES');

interface ClientServices {
  jobs: JobApiService;
  models: PublicModelCatalog;
}

/** The job API's routes, served through libs/http's plain-route pipeline. */
export function routeProviders(config: JobRouterConfig): Provider[] {
  return [
    PlainRoutes,
    {
      // What client routes call: the job API and the public model catalog.
      provide: CLIENT_SERVICES,
      inject: [JobApiService, PUBLIC_MODEL_CATALOG],
      useFactory: (jobs: JobApiService, models: PublicModelCatalog): ClientServices => ({ jobs, models }),
    },
    {
      provide: JOB_API_ROUTES,
      inject: [CLIENT_SERVICES, JOB_ENGINE, API_KEY_AUTHENTICATOR, EndpointLimits, WorkerAuthenticator],
      useFactory: (
        client: ClientServices,
        engine: JobRouterEngine,
        apiKeys: ApiKeyAuthenticator,
        limits: EndpointLimits,
        workerAuth: WorkerAuthenticator,
      ) => jobApiRouteTable({ ...client, engine, apiKeys, limits, workerAuth }, config),
    },
    JobApiRoutes,
  ];
}
