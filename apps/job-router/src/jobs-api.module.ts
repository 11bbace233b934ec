import { type DynamicModule, Inject, Injectable, Logger, Module, type OnApplicationShutdown } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { EndpointsRepository, WorkerStateStore } from '@runplane/endpoints';
import { HttpAdapterHost } from '@nestjs/core';
import {
  API_KEY_AUTHENTICATOR,
  type ApiKeyAuthenticator,
  closingSignal,
  DB_CLIENT,
  REDIS_CLIENT,
} from '@runplane/http';
import { createAccountsServices } from '@runplane/accounts';
import { closeRedis, createRedis, normalizePrefix, type Redis } from '@runplane/queue';
import { ClientRoutes } from './client/client-routes';
import { EndpointDirectory } from './client/endpoint-directory';
import { JobApiService, type JobRouterEngine } from './client/job-api.service';
import { JobsController, STREAM_DEFAULT_WAIT } from './client/jobs.controller';
import type { JobRouterConfig } from './config';
import { BODY_LIMITS, type BodyLimits, JobRouterHttpSetup } from './http/job-router-http';
import { EndpointLimits } from './limits/endpoint-limits';
import { JobRateLimiter } from './limits/job-rate-limiter';
import { RateLimitInterceptor } from './limits/rate-limit.interceptor';
import { OpenAiController } from './openai';
import { SWEEP_ERROR_SINK, SWEEP_INTERVAL_MS, EngineSweeper } from './sweeper';
import { ENGINE_REDIS, JOB_ENGINE, COMMANDS_REDIS } from './tokens';
import { WorkerAuthenticator } from './worker/worker-auth';
import { WORKER_POLL_WAIT, WorkerRoutes } from './worker/worker-routes';
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

function logSweepError(error: unknown): void {
  new Logger('JobSweeper').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
}

function bodyLimitsOf(config: JobRouterConfig): BodyLimits {
  return { run: config.JOB_RUN_MAX_BYTES, runsync: config.JOB_RUNSYNC_MAX_BYTES, other: config.JOB_OTHER_MAX_BYTES };
}

/** Closes the second Redis connection when the app stops (after the engine, which closes before shutdown). */
@Injectable()
class CommandsRedisCloser implements OnApplicationShutdown {
  constructor(@Inject(COMMANDS_REDIS) private readonly redis: Redis) {}

  onApplicationShutdown(): Promise<void> {
    return closeRedis(this.redis);
  }
}

/** The serverless job API v2 (clients) and the worker protocol (workers), with auth, limits and the engine sweep. */
@Module({})
export class JobsApiModule {
  static forRoot(options: JobsApiOptions): DynamicModule {
    const { config } = options;
    return {
      module: JobsApiModule,
      controllers: [JobsController, OpenAiController],
      providers: [
        // Auto-pipelined: the commands of all requests in flight go out as one write per event-loop turn.
        { provide: ENGINE_REDIS, useFactory: () => createRedis(config.REDIS_URL, { autoPipelining: true }) },
        { provide: COMMANDS_REDIS, useFactory: () => createRedis(config.REDIS_URL, { autoPipelining: true }) },
        CommandsRedisCloser,
        {
          provide: JOB_ENGINE,
          inject: [ENGINE_REDIS, COMMANDS_REDIS],
          useFactory: (redis: Redis, commands: Redis) => options.engine({ redis, commands, config }),
        },
        {
          provide: API_KEY_AUTHENTICATOR,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) => createAccountsServices(db).apiKeys,
        },
        {
          provide: EndpointDirectory,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) => new EndpointDirectory(new EndpointsRepository(db)),
        },
        {
          provide: WorkerTokensService,
          inject: [DB_CLIENT],
          useFactory: (db: DbClient) => createWorkerTokensService(db),
        },
        {
          provide: JobApiService,
          inject: [JOB_ENGINE, EndpointDirectory, REDIS_CLIENT, HttpAdapterHost],
          useFactory: (engine: JobRouterEngine, endpoints: EndpointDirectory, redis: Redis, host: HttpAdapterHost) => {
            const states = new WorkerStateStore(redis);
            const schedulerStates = {
              async counts(endpointId: string) {
                const { counts } = await states.read(endpointId);
                return { initializing: counts.initializing, throttled: counts.throttled, unhealthy: counts.unhealthy };
              },
            };
            return new JobApiService(
              engine,
              endpoints,
              schedulerStates,
              closingSignal(host.httpAdapter.getHttpServer()),
            );
          },
        },
        {
          provide: JobRateLimiter,
          inject: [COMMANDS_REDIS, JOB_ENGINE],
          useFactory: (redis: Redis, engine: JobRouterEngine) => {
            const workers = { runningWorkers: async (id: string) => (await engine.workers(id)).running.length };
            const limits = {
              windowMs: config.JOB_RATE_WINDOW_MS,
              perWorker: config.JOB_RATE_PER_WORKER,
              overrides: config.JOB_RATE_LIMITS,
            };
            return new JobRateLimiter(
              redis,
              { ...limits, maxHoldMs: 310_000, keyPrefix: normalizePrefix(config.REDIS_PREFIX) },
              workers,
            );
          },
        },
        {
          provide: EndpointLimits,
          inject: [EndpointDirectory, JobRateLimiter],
          useFactory: (endpoints: EndpointDirectory, limiter: JobRateLimiter) => new EndpointLimits(endpoints, limiter),
        },
        {
          provide: WorkerAuthenticator,
          inject: [WorkerTokensService, API_KEY_AUTHENTICATOR, EndpointDirectory],
          useFactory: (tokens: WorkerTokensService, apiKeys: ApiKeyAuthenticator, endpoints: EndpointDirectory) =>
            new WorkerAuthenticator(tokens, apiKeys, endpoints),
        },
        RateLimitInterceptor,
        ClientRoutes,
        WorkerRoutes,
        JobRouterHttpSetup,
        EngineSweeper,
        { provide: BODY_LIMITS, useValue: bodyLimitsOf(config) },
        { provide: STREAM_DEFAULT_WAIT, useValue: config.JOB_STREAM_WAIT_MS },
        { provide: WORKER_POLL_WAIT, useValue: config.JOB_TAKE_WAIT_MS },
        { provide: SWEEP_INTERVAL_MS, useValue: config.JOB_SWEEP_INTERVAL_MS },
        { provide: SWEEP_ERROR_SINK, useValue: options.onSweepError ?? logSweepError },
      ],
    };
  }
}
