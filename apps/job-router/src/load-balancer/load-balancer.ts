import { randomUUID } from 'node:crypto';
import type { LbRequestCounts, LbRouterSnapshot } from '@runplane/jobs';
import { EndpointPool, type WorkerSource } from './endpoint-pool';
import { EndpointTraffic } from './endpoint-traffic';
import type { HealthProbe } from './worker-health';

/** Where this replica's traffic goes: the scheduler's view (LoadBalancerTraffic) and the /health counts. */
export interface TrafficSink {
  publish(endpointId: string, routerId: string, snapshot: LbRouterSnapshot): Promise<void>;
  demand(endpointId: string): Promise<void>;
}
/** Where finished requests are counted (LoadBalancerRequestCounts). */
export interface CountSink {
  add(endpointId: string, counts: LbRequestCounts): Promise<void>;
}

/** What the load balancer is built from. */
export interface LoadBalancerDeps {
  source: WorkerSource;
  probe: HealthProbe;
  traffic: TrafficSink;
  counts: CountSink;
  onError: (error: unknown) => void;
}

/** One load-balancing endpoint this replica serves: its workers and its traffic. */
export interface LbEndpoint {
  readonly pool: EndpointPool;
  readonly traffic: EndpointTraffic;
  lastDemandAt: number;
  readonly firstRead: Promise<void>;
}

/** An endpoint without a request for this long is forgotten; its next request reads its workers afresh. */
const IDLE_MS = 30_000;
/** At most one lb.demand event per endpoint and replica in this time. */
const DEMAND_INTERVAL_MS = 1_000;

/**
 * The load-balancing endpoints with recent traffic on this replica. Every `refreshIntervalMs` each one's workers
 * are re-read and health-checked, its traffic snapshot is published for the autoscaler and its finished requests
 * are counted; an endpoint quiet for {@link IDLE_MS} is dropped.
 */
export class LoadBalancer {
  /** This replica's id in the traffic snapshots. */
  readonly routerId = randomUUID();
  private readonly endpoints = new Map<string, LbEndpoint>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly deps: LoadBalancerDeps,
    private readonly refreshIntervalMs: number,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), this.refreshIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The endpoint's workers and traffic; read and health-checked first when it had no recent traffic. */
  async endpoint(endpointId: string): Promise<LbEndpoint> {
    let entry = this.endpoints.get(endpointId);
    if (!entry) {
      const pool = new EndpointPool(endpointId, this.deps.source, this.deps.probe);
      entry = { pool, traffic: new EndpointTraffic(Date.now()), lastDemandAt: 0, firstRead: pool.refresh() };
      this.endpoints.set(endpointId, entry);
      const created = entry;
      created.firstRead.catch(() => {
        if (this.endpoints.get(endpointId) === created) this.endpoints.delete(endpointId);
      });
    }
    await entry.firstRead;
    return entry;
  }

  /** A request starts waiting with no ready worker: the autoscaler hears of it at once (scale from zero). */
  async waiting(entry: LbEndpoint): Promise<void> {
    const now = Date.now();
    const demand = now - entry.lastDemandAt >= DEMAND_INTERVAL_MS;
    if (demand) entry.lastDemandAt = now;
    await Promise.all([this.publish(entry, now), demand ? this.deps.traffic.demand(entry.pool.endpointId) : undefined]);
  }

  /** One pass over the endpoints with traffic (the timer's; tests may call it). */
  async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      await Promise.all([...this.endpoints.values()].map((entry) => this.tickEndpoint(entry)));
    } finally {
      this.ticking = false;
    }
  }

  private async tickEndpoint(entry: LbEndpoint): Promise<void> {
    const now = Date.now();
    if (entry.traffic.idle(now, IDLE_MS)) {
      this.endpoints.delete(entry.pool.endpointId);
      return;
    }
    try {
      await entry.pool.refresh();
      await this.publish(entry, now);
      await this.flushCounts(entry);
    } catch (error) {
      this.deps.onError(error);
    }
  }

  private publish(entry: LbEndpoint, now: number): Promise<void> {
    const snapshot: LbRouterSnapshot = {
      at: now,
      waiting: entry.traffic.waiting,
      inFlight: entry.pool.inFlight(),
      requestsPerSecond: entry.traffic.requestsPerSecond(now),
      draining: entry.pool.draining(),
    };
    return this.deps.traffic.publish(entry.pool.endpointId, this.routerId, snapshot);
  }

  private async flushCounts(entry: LbEndpoint): Promise<void> {
    const counts = entry.traffic.takeCounts();
    try {
      await this.deps.counts.add(entry.pool.endpointId, counts);
    } catch (error) {
      entry.traffic.restoreCounts(counts);
      throw error;
    }
  }

  /** Publishes the last snapshots and counts (on shutdown). */
  async flush(): Promise<void> {
    await Promise.all([...this.endpoints.values()].map((entry) => this.flushCounts(entry).catch(this.deps.onError)));
  }
}
