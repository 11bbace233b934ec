import type { DbClient } from '@runplane/db';
import { WorkerStateStore } from '@runplane/endpoints';
import type { MetricsRegistry } from '@runplane/observability';
import type { Redis } from '@runplane/queue';
import { PodCountsRepository } from '@runplane/workloads';
import { SchedulerMetrics } from './scheduler-metrics';

/** The bound of the `endpoint` label (see the README, "Bounded endpoint labels"). */
export interface EndpointLabelBound {
  METRICS_ENDPOINT_LABELS: number;
  METRICS_ENDPOINT_IDLE_MS: number;
}

/** The scheduler's metrics on the app's registry, reading Pod rows and the published worker states at scrape time. */
export function createSchedulerMetrics(
  registry: MetricsRegistry,
  db: DbClient,
  /** The app's client with the deployment key prefix (worker states). */
  redis: Redis,
  bound: EndpointLabelBound,
): SchedulerMetrics {
  const endpoints = registry.boundedLabel({
    limit: bound.METRICS_ENDPOINT_LABELS,
    idleMs: bound.METRICS_ENDPOINT_IDLE_MS,
  });
  return new SchedulerMetrics(
    registry,
    { pods: new PodCountsRepository(db), states: new WorkerStateStore(redis) },
    endpoints,
  );
}
