import type { WorkerStateStore } from '@runplane/endpoints';
import type { KubeObserver } from '@runplane/kube';
import { type BoundedLabel, type Counter, type Histogram, type MetricsRegistry } from '@runplane/observability';
import type { NoCapacityReason } from '@runplane/placement';
import type { PodCountsRepository } from '@runplane/workloads';
import { type DecisionInput, decisionReason } from './decision-reasons';
import { placementFailureReason } from './placement-reasons';

/** What the scrape-time gauges read: the Pod rows and the worker states the autoscaler publishes. */
export interface SchedulerMetricsSources {
  pods: Pick<PodCountsRepository, 'byStatus' | 'workerEndpoints'>;
  states: Pick<WorkerStateStore, 'read'>;
}

/** Buckets of a scheduler pass: milliseconds on an idle cluster, seconds with thousands of Pods. */
const PASS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * The scheduler's domain metrics on the app's registry (see the README, "Observability"): autoscaler decisions,
 * placement failures, pass durations and Kubernetes API traffic are counted where they happen; workers by state,
 * Pods by status and leadership are read at each scrape.
 */
export class SchedulerMetrics {
  private readonly decisions: Counter<'direction' | 'reason' | 'type'>;
  private readonly placementFailures: Counter<'reason' | 'kind'>;
  private readonly passes: Histogram<'outcome'>;
  private readonly kubeRequests: Counter<'verb' | 'resource' | 'code'>;
  private readonly watchRestarts: Counter<'resource'>;
  private isLeader: () => boolean = () => false;

  constructor(
    metrics: MetricsRegistry,
    private readonly sources: SchedulerMetricsSources,
    private readonly endpoints: BoundedLabel,
  ) {
    this.decisions = metrics.counter(
      'runplane_autoscaler_decisions_total',
      'Scaling decisions by direction (up, down), reason and endpoint type (queue, load_balancer)',
      ['direction', 'reason', 'type'],
    );
    this.placementFailures = metrics.counter(
      'runplane_placement_failures_total',
      'Placements refused, by the reason of the closest candidate and what was placed (pod, worker)',
      ['reason', 'kind'],
    );
    this.passes = metrics.histogram(
      'runplane_scheduler_pass_duration_seconds',
      'Duration of the leader scheduler passes (inventory, autoscaling, Pod reconcile, usage) by outcome (ok, failed)',
      ['outcome'],
      PASS_BUCKETS,
    );
    this.kubeRequests = metrics.counter(
      'runplane_kube_requests_total',
      'Kubernetes API requests by verb, resource and HTTP status code (error: no answer)',
      ['verb', 'resource', 'code'],
    );
    this.watchRestarts = metrics.counter(
      'runplane_kube_watch_restarts_total',
      'Restarts of Kubernetes watches (informers) after a failure, by resource',
      ['resource'],
    );
    this.registerGauges(metrics);
  }

  /** An autoscaler pass decided to add or remove workers of an endpoint. */
  decided(input: DecisionInput): void {
    const reason = decisionReason(input);
    if (reason) this.decisions.inc({ direction: reason.direction, reason: reason.reason, type: input.type });
  }

  /** A placement found no machine (`kind`: a Pod the gateway asked for, or an autoscaler's worker). */
  placementFailed(kind: 'pod' | 'worker', reasons: readonly NoCapacityReason[]): void {
    this.placementFailures.inc({ reason: placementFailureReason(reasons), kind });
  }

  /** Where the leadership gauge reads whether this replica leads (the loop, built after the metrics). */
  leadership(isLeader: () => boolean): void {
    this.isLeader = isLeader;
  }

  /** A leader pass ended after `seconds`. */
  passEnded(seconds: number, failed: boolean): void {
    this.passes.observe({ outcome: failed ? 'failed' : 'ok' }, seconds);
  }

  /** The observer handed to the Kubernetes clients (set before the driver builds them). */
  readonly kube: KubeObserver = {
    request: ({ verb, resource, code }) => this.kubeRequests.inc({ verb, resource, code }),
    watchRestart: (resource) => this.watchRestarts.inc({ resource }),
  };

  private registerGauges(metrics: MetricsRegistry): void {
    metrics.collectedGauge('runplane_workers', 'Workers by endpoint and state', ['endpoint', 'state'], (gauge) =>
      this.collectWorkers((labels, value) => gauge.set(labels, value)),
    );
    metrics.collectedGauge(
      'runplane_pods',
      'Pod rows (workers included) by desired status and observed phase (NONE: not observed yet)',
      ['desired', 'observed'],
      async (gauge) => {
        for (const { desired, observed, count } of await this.sources.pods.byStatus())
          gauge.set({ desired, observed }, count);
      },
    );
    metrics.collectedGauge(
      'runplane_scheduler_leader',
      'Whether this scheduler replica leads the scheduling loop (1) or waits (0)',
      [],
      async (gauge) => gauge.set(this.isLeader() ? 1 : 0),
    );
  }

  /**
   * Worker states as the leader last published them (the same store /health reads), for the endpoints with worker
   * Pods meant to run; endpoints past the label bound are summed under `endpoint="other"`.
   */
  private async collectWorkers(set: (labels: { endpoint: string; state: string }, value: number) => void) {
    const ids = await this.sources.pods.workerEndpoints();
    const readings = await Promise.all(ids.map(async (id) => [id, await this.sources.states.read(id)] as const));
    const sums = new Map<string, Map<string, number>>();
    for (const [id, { counts }] of readings) {
      const endpoint = this.endpoints.of(id);
      const states = sums.get(endpoint) ?? new Map<string, number>();
      for (const [state, count] of Object.entries(counts)) states.set(state, (states.get(state) ?? 0) + count);
      sums.set(endpoint, states);
    }
    for (const [endpoint, states] of sums) for (const [state, count] of states) set({ endpoint, state }, count);
  }
}
