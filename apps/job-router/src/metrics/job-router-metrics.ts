import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { type FastifyInstance, type FastifyRequest, METRICS_REGISTRY, REDIS_CLIENT } from '@runplane/http';
import { FINISHED_FIELD, JobKeys, parseFinished, type RedisJobEngine } from '@runplane/jobs';
import type { MetricsRegistry } from '@runplane/observability';
import { createRedis, type Redis } from '@runplane/queue';
import { JOB_API_ROUTES, type JobApiRouteTable } from '../http/job-api-routes';
import { JOB_ENGINE } from '../tokens';
import { RateLimitedError } from '../limits/job-rate-limiter';
import { JobEventsGroup } from './job-events-group';
import { JobMetrics } from './job-metrics';
import { QueueGauges } from './queue-gauges';

/** What the job-router's metrics read: the deployment's Redis and the bound of the endpoint label. */
export interface JobRouterMetricsSettings {
  REDIS_URL: string;
  REDIS_PREFIX: string;
  METRICS_ENDPOINT_LABELS: number;
  METRICS_ENDPOINT_IDLE_MS: number;
}

/** What the metrics use of the engine: its clock, and its word on each job it records. */
type MeteredEngine = Pick<RedisJobEngine, 'onSubmitted'> & { clock?: { now(): number } };

/** Injection token for {@link JobRouterMetricsSettings}. */
export const METRICS_SETTINGS = Symbol('METRICS_SETTINGS');

/**
 * The job-router's domain metrics on the app's registry: jobs submitted (counted by the replica that records each),
 * jobs finished with their delay and execution time (from the engine's finished-jobs stream, through the replicas'
 * consumer group: exact summed over replicas), queue depth and oldest job age (read at scrape time) and requests
 * refused by the limits (counted where they are refused).
 */
@Injectable()
export class JobRouterMetrics implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobRouterMetrics');
  private readonly jobs: JobMetrics;
  private readonly finished: JobEventsGroup;
  /** The engine's clock, which stamps queue times (a test's fake clock); Date.now until the app is up. */
  private now: () => number = Date.now;

  constructor(
    @Inject(METRICS_REGISTRY) metrics: MetricsRegistry,
    @Inject(REDIS_CLIENT) redis: Redis,
    @Inject(METRICS_SETTINGS) settings: JobRouterMetricsSettings,
    private readonly host: HttpAdapterHost,
    private readonly modules: ModuleRef,
  ) {
    const endpoints = metrics.boundedLabel({
      limit: settings.METRICS_ENDPOINT_LABELS,
      idleMs: settings.METRICS_ENDPOINT_IDLE_MS,
    });
    this.jobs = new JobMetrics(metrics, endpoints);
    new QueueGauges(redis, endpoints, () => this.now()).register(metrics);
    this.finished = new JobEventsGroup(
      createRedis(settings.REDIS_URL),
      JobKeys.ofPrefix(settings.REDIS_PREFIX).global('finished'),
      (fields) => {
        const job = parseFinished(fields[FINISHED_FIELD] ?? '');
        if (job) this.jobs.recordFinished(job);
      },
      (error) => this.logger.warn(`finished jobs: ${error.message}`),
    );
  }

  onApplicationBootstrap(): void {
    const engine = this.modules.get<MeteredEngine>(JOB_ENGINE, { strict: false });
    const clock = engine.clock;
    if (clock) this.now = () => clock.now();
    engine.onSubmitted((endpointId) => this.jobs.recordSubmitted(endpointId));
    this.countRefusals();
    this.finished.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.finished.stop();
  }

  /** A RateLimitedError a client route's guard threw is counted under the route's limited operation. */
  private countRefusals(): void {
    const table = this.modules.get<JobApiRouteTable>(JOB_API_ROUTES, { strict: false });
    const fastify = this.host.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onError', (request, _reply, error, done) => {
      if (error instanceof RateLimitedError) {
        const operation = this.operationOf(table, request);
        const { endpointId } = request.params as { endpointId?: string };
        if (operation && endpointId) this.jobs.recordRateLimited(endpointId, operation);
      }
      done();
    });
  }

  private operationOf(table: JobApiRouteTable, request: FastifyRequest): string | undefined {
    const url = request.routeOptions.url;
    const route = table.client.routes.find((entry) => entry.url === url && entry.method === request.method);
    return route?.policyOf(request).limit;
  }
}
