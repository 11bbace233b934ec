import type { BoundedLabel, Counter, Histogram, MetricsRegistry } from '@runplane/observability';

/** How a load-balancing request ended, as the metrics count it. */
export type LbMetricOutcome = 'completed' | 'failed' | 'refused' | 'abandoned' | 'rate_limited';

/** Seconds a request waited for a ready worker: from a warm pool's 0 to a cold start's minute or more. */
const WAIT_SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/**
 * The load-balancing proxy's domain metrics, per endpoint under the bounded `endpoint` label (only endpoints the
 * caller owns ever get one): requests by outcome and the time requests waited for a ready worker.
 */
export class LbMetrics {
  private readonly requests: Counter<'endpoint' | 'outcome'>;
  private readonly waits: Histogram<'endpoint'>;

  constructor(
    metrics: MetricsRegistry,
    private readonly endpoints: BoundedLabel,
  ) {
    this.requests = metrics.counter(
      'runplane_lb_requests_total',
      'Load-balancing requests by outcome: completed (a worker answered), failed (502, 503), refused (413), abandoned (the client left first), rate_limited (429)',
      ['endpoint', 'outcome'],
    );
    this.waits = metrics.histogram(
      'runplane_lb_wait_seconds',
      'Time a load-balancing request waited for a ready worker (requests that found one at once are not observed)',
      ['endpoint'],
      WAIT_SECONDS_BUCKETS,
    );
    endpoints.track(this.requests, 'endpoint');
    endpoints.track(this.waits, 'endpoint');
  }

  /** Counts a request of the endpoint that ended with `outcome`. */
  ended(endpointId: string, outcome: LbMetricOutcome): void {
    this.requests.inc({ endpoint: this.endpoints.of(endpointId), outcome });
  }

  /** Records how long a request waited for a worker. */
  waited(endpointId: string, seconds: number): void {
    this.waits.observe({ endpoint: this.endpoints.of(endpointId) }, seconds);
  }
}
