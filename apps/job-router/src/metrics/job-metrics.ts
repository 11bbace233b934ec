import type { FinishedJob } from '@runplane/jobs';
import type { BoundedLabel, Counter, Histogram, MetricsRegistry } from '@runplane/observability';

/** Seconds a job waits in the queue or runs: from 100 ms (a warm worker) to an hour (a long job or a cold start). */
const JOB_SECONDS_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** Seconds from `from` to `to` (ms), undefined without either. */
const seconds = (from: number | undefined, to: number | undefined): number | undefined =>
  from === undefined || to === undefined ? undefined : Math.max(0, to - from) / 1000;

/**
 * The job API's domain metrics, per endpoint under the bounded `endpoint` label: jobs submitted and finished (by final
 * status), their delay and execution time, and requests refused by the rate and concurrency limits.
 */
export class JobMetrics {
  private readonly submitted: Counter<'endpoint'>;
  private readonly finished: Counter<'endpoint' | 'status'>;
  private readonly delay: Histogram<'endpoint'>;
  private readonly execution: Histogram<'endpoint'>;
  private readonly rateLimited: Counter<'endpoint' | 'operation'>;

  constructor(
    metrics: MetricsRegistry,
    readonly endpoints: BoundedLabel,
  ) {
    this.submitted = metrics.counter('runplane_jobs_submitted_total', 'Jobs submitted (/run, /runsync)', ['endpoint']);
    this.finished = metrics.counter('runplane_jobs_finished_total', 'Jobs that reached a final status', [
      'endpoint',
      'status',
    ]);
    this.delay = metrics.histogram(
      'runplane_job_delay_seconds',
      'Time a finished job waited in the queue before a worker took it (its delayTime)',
      ['endpoint'],
      JOB_SECONDS_BUCKETS,
    );
    this.execution = metrics.histogram(
      'runplane_job_execution_seconds',
      'Time a finished job ran on its worker (its executionTime)',
      ['endpoint'],
      JOB_SECONDS_BUCKETS,
    );
    this.rateLimited = metrics.counter(
      'runplane_job_rate_limited_total',
      'Job API requests refused with 429 by the rate or concurrency limits',
      ['endpoint', 'operation'],
    );
    for (const metric of [this.submitted, this.finished, this.delay, this.execution, this.rateLimited])
      endpoints.track(metric, 'endpoint');
  }

  /** Counts a job submitted (/run, /runsync), not a /retry. */
  recordSubmitted(endpointId: string): void {
    this.submitted.inc({ endpoint: this.endpoints.of(endpointId) });
  }

  /** Counts a final status, with the job's delay and execution time when a worker took it. */
  recordFinished({ endpointId, status, queuedAt, takenAt, doneAt }: FinishedJob): void {
    const endpoint = this.endpoints.of(endpointId);
    this.finished.inc({ endpoint, status });
    const delay = seconds(queuedAt, takenAt);
    const execution = seconds(takenAt, doneAt);
    if (delay !== undefined) this.delay.observe({ endpoint }, delay);
    if (execution !== undefined) this.execution.observe({ endpoint }, execution);
  }

  /** Counts one request refused by an endpoint's limits. */
  recordRateLimited(endpointId: string, operation: string): void {
    this.rateLimited.inc({ endpoint: this.endpoints.of(endpointId), operation });
  }
}
