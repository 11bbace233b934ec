import type { EndpointHealth, WorkerState } from '@runplane/contracts';
import type { LbRequestCounts, LbTrafficView } from '@runplane/jobs';

/** What `/health` of a load-balancing endpoint reads: the job-routers' traffic, request counters, worker states. */
export interface LoadBalancerHealthSources {
  /** Live waiting and in-flight requests, summed over the job-router replicas (LoadBalancerTraffic). */
  traffic: { view(endpointId: string): Promise<LbTrafficView> };
  /** Requests answered or failed since the endpoint's first (LoadBalancerRequestCounts). */
  counts: { read(endpointId: string): Promise<LbRequestCounts> };
  /** The workers' states the scheduler published (WorkerStateStore): load-balancing workers send no heartbeats. */
  states: { read(endpointId: string): Promise<{ counts: Record<WorkerState, number> }> };
}

/**
 * `/health` of a load-balancing endpoint, in the job API's shape: its requests stand for jobs (`inProgress` in flight
 * on a worker, `inQueue` waiting for a ready one, `completed` answered by a worker, `failed` given no answer, never
 * `retried`: requests are not retried), and its workers are counted as the scheduler sees them (running: a request in
 * flight; idle: serving none; initializing: its server not up yet).
 */
export class LoadBalancerHealth {
  constructor(private readonly sources: LoadBalancerHealthSources) {}

  async health(endpointId: string): Promise<EndpointHealth> {
    const [view, requests, { counts }] = await Promise.all([
      this.sources.traffic.view(endpointId),
      this.sources.counts.read(endpointId),
      this.sources.states.read(endpointId),
    ]);
    return {
      jobs: {
        completed: requests.completed,
        failed: requests.failed,
        inProgress: view.totalInFlight,
        inQueue: view.waiting,
        retried: 0,
      },
      workers: {
        idle: counts.idle,
        running: counts.running,
        initializing: counts.initializing,
        throttled: counts.throttled,
        unhealthy: counts.unhealthy,
      },
    };
  }
}
