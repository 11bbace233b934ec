import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationShutdown,
  type OnModuleInit,
  type Provider,
} from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { LoadBalancerUpstreamsRepository, WorkerStateStore } from '@runplane/endpoints';
import {
  API_KEY_AUTHENTICATOR,
  type ApiKeyAuthenticator,
  createReverseProxy,
  DB_CLIENT,
  METRICS_REGISTRY,
  PlainRoutes,
  REDIS_CLIENT,
} from '@runplane/http';
import { LoadBalancerRequestCounts, LoadBalancerTraffic, WorkerRetirement } from '@runplane/jobs';
import type { MetricsRegistry } from '@runplane/observability';
import type { Redis } from '@runplane/queue';
import type { JobRouterConfig } from '../config';
import { JobRateLimiter } from '../limits/job-rate-limiter';
import { QUEUE_FREE_REDIS } from '../tokens';
import { LbEndpointDirectory } from './lb-endpoints';
import { LbMetrics } from './lb-metrics';
import { type LbProxyDeps, LoadBalancerProxy } from './lb-proxy';
import { workerSource } from './endpoint-pool';
import { LoadBalancer } from './load-balancer';
import { httpHealthProbe } from './worker-health';

function logError(error: unknown): void {
  new Logger('LoadBalancer').error(error instanceof Error ? (error.stack ?? error.message) : String(error));
}

/** Serves load-balancing endpoints when RUNPLANE_LB_DOMAIN is set: intercepts their hosts and runs the refresh. */
@Injectable()
export class LoadBalancerService implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(PlainRoutes) private readonly http: PlainRoutes,
    @Inject(LoadBalancer) private readonly balancer: LoadBalancer,
    @Inject(LoadBalancerProxy) private readonly proxy: LoadBalancerProxy | null,
  ) {}

  onModuleInit(): void {
    if (!this.proxy) return;
    this.http.intercept(this.proxy);
    this.balancer.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.balancer.stop();
    await this.balancer.flush();
  }
}

/** The load balancer on the queue-free Redis connection (it needs no order with BullMQ's commands). */
export function loadBalancerProviders(config: JobRouterConfig): Provider[] {
  return [
    {
      provide: LoadBalancer,
      inject: [DB_CLIENT, QUEUE_FREE_REDIS],
      useFactory: (db: DbClient, redis: Redis) =>
        new LoadBalancer(
          {
            source: workerSource({
              rows: new LoadBalancerUpstreamsRepository(db),
              retirement: new WorkerRetirement(redis, config.REDIS_PREFIX),
            }),
            probe: httpHealthProbe(config.LB_HEALTH_TIMEOUT_MS),
            traffic: new LoadBalancerTraffic(redis, config.REDIS_PREFIX),
            counts: new LoadBalancerRequestCounts(redis, config.REDIS_PREFIX),
            onError: logError,
          },
          config.LB_REFRESH_INTERVAL_MS,
        ),
    },
    {
      provide: LB_ADMISSION,
      inject: [API_KEY_AUTHENTICATOR, DB_CLIENT, JobRateLimiter],
      useFactory: (apiKeys: ApiKeyAuthenticator, db: DbClient, limiter: JobRateLimiter): LbAdmission => ({
        apiKeys,
        endpoints: new LbEndpointDirectory(new LoadBalancerUpstreamsRepository(db)),
        limiter,
      }),
    },
    {
      provide: LoadBalancerProxy,
      inject: [LB_ADMISSION, REDIS_CLIENT, LoadBalancer, METRICS_REGISTRY],
      useFactory: (admission: LbAdmission, redis: Redis, balancer: LoadBalancer, metrics: MetricsRegistry) =>
        config.RUNPLANE_LB_DOMAIN ? lbProxy(config, { admission, redis, balancer, metrics }) : null,
    },
    LoadBalancerService,
  ];
}

/** Who may send a load-balancing request: the job API's keys, the caller's own endpoint, the endpoint's limits. */
type LbAdmission = Pick<LbProxyDeps, 'apiKeys' | 'endpoints' | 'limiter'>;
const LB_ADMISSION = Symbol('LB_ADMISSION');

interface LbProxyParts {
  admission: LbAdmission;
  redis: Redis;
  balancer: LoadBalancer;
  metrics: MetricsRegistry;
}

function lbProxy(config: JobRouterConfig, parts: LbProxyParts): LoadBalancerProxy {
  const states = new WorkerStateStore(parts.redis);
  const endpointLabel = parts.metrics.boundedLabel({
    limit: config.METRICS_ENDPOINT_LABELS,
    idleMs: config.METRICS_ENDPOINT_IDLE_MS,
  });
  return new LoadBalancerProxy(
    {
      ...parts.admission,
      balancer: parts.balancer,
      states: { read: async (endpointId) => (await states.read(endpointId)).workers },
      proxy: createReverseProxy({
        upstreamIdleTimeoutMs: config.LB_UPSTREAM_IDLE_TIMEOUT_MS,
        connectTimeoutMs: config.LB_HEALTH_TIMEOUT_MS,
      }),
      metrics: new LbMetrics(parts.metrics, endpointLabel),
      onError: logError,
    },
    { domain: config.RUNPLANE_LB_DOMAIN ?? '', waitMs: config.LB_WAIT_MS, maxBodyBytes: config.LB_MAX_BODY_BYTES },
  );
}
