import type { Redis } from '@runplane/queue';
import { eventEntry, JOB_EVENTS_MAX_LEN } from './events';
import { JobKeys } from './protocol';

/**
 * The traffic of load-balancing endpoints, shared between the job-router replicas that proxy it and the scheduler's
 * autoscaler that sizes their workers. Requests never enter Redis one by one: each replica keeps its counts in memory
 * and publishes one snapshot per endpoint about once a second (and at once when a request starts waiting with no
 * ready worker), as a field of the hash `<prefix>jobs:<ep>:lb` keyed by the replica id. A replica that dies simply
 * stops refreshing its field: readers ignore snapshots older than {@link LB_SNAPSHOT_STALE_MS}, and the hash expires.
 */

/** One replica's traffic of one endpoint. */
export interface LbRouterSnapshot {
  /** When it was taken (ms since the epoch). */
  at: number;
  /** Requests waiting for a ready worker. */
  waiting: number;
  /** Requests in flight, by worker (Pod) id; workers with none are left out. */
  inFlight: Record<string, number>;
  /** Requests received per second over the replica's recent window. */
  requestsPerSecond: number;
  /** Workers the replica knows are draining (retired): it gives them no new request. */
  draining?: string[];
}

/** Every live replica's traffic of one endpoint, summed. */
export interface LbTrafficView {
  waiting: number;
  /** Requests in flight, by worker id. */
  inFlight: Map<string, number>;
  totalInFlight: number;
  requestsPerSecond: number;
  /** How many live replicas published a snapshot. */
  routers: number;
  /** For each draining worker, how many live replicas know it drains. */
  draining: Map<string, number>;
}

/** A snapshot older than this is a replica that is gone. */
export const LB_SNAPSHOT_STALE_MS = 5_000;
/** A draining worker is removed after this long even with requests still in flight on it. */
export const LB_DRAIN_MAX_MS = 5 * 60_000;
/** The hash expires when no replica has written for this long. */
const LB_HASH_TTL_MS = 60_000;
const LB_KEY = 'lb';

/** Sums the live snapshots of one endpoint (pure, for the reader and its spec). */
export function mergeLbSnapshots(snapshots: readonly LbRouterSnapshot[], now: number): LbTrafficView {
  const view: LbTrafficView = {
    waiting: 0,
    inFlight: new Map(),
    totalInFlight: 0,
    requestsPerSecond: 0,
    routers: 0,
    draining: new Map(),
  };
  for (const snapshot of snapshots) {
    if (now - snapshot.at > LB_SNAPSHOT_STALE_MS) continue;
    view.routers += 1;
    for (const workerId of snapshot.draining ?? []) view.draining.set(workerId, (view.draining.get(workerId) ?? 0) + 1);
    view.waiting += snapshot.waiting;
    view.requestsPerSecond += snapshot.requestsPerSecond;
    for (const [workerId, count] of Object.entries(snapshot.inFlight)) {
      view.inFlight.set(workerId, (view.inFlight.get(workerId) ?? 0) + count);
      view.totalInFlight += count;
    }
  }
  return view;
}

/**
 * Whether a worker draining since `retiredAt` may go: once every live replica says it knows the worker drains and has
 * no request in flight on it, at the earliest {@link LB_SNAPSHOT_STALE_MS} after the retirement (by then every live
 * snapshot was taken after it; a replica with no live snapshot reads the mark before its next request), or after
 * {@link LB_DRAIN_MAX_MS} whatever is in flight.
 */
export function drainedOut(view: LbTrafficView, workerId: string, retiredAt: number, now: number): boolean {
  if (now - retiredAt >= LB_DRAIN_MAX_MS) return true;
  if (now - retiredAt < LB_SNAPSHOT_STALE_MS) return false;
  return (view.inFlight.get(workerId) ?? 0) === 0 && (view.draining.get(workerId) ?? 0) === view.routers;
}

/** Writes (job-router) and reads (scheduler) the load-balancing traffic snapshots. */
export class LoadBalancerTraffic {
  private readonly keys: JobKeys;

  /** `redis` is a client WITHOUT keyPrefix; `prefix` the deployment's, as the job engine uses it. */
  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = JobKeys.ofPrefix(prefix);
  }

  /** Publishes one replica's snapshot of one endpoint. */
  async publish(endpointId: string, routerId: string, snapshot: LbRouterSnapshot): Promise<void> {
    const key = this.key(endpointId);
    await this.redis.multi().hset(key, routerId, JSON.stringify(snapshot)).pexpire(key, LB_HASH_TTL_MS).exec();
  }

  /**
   * Tells the autoscaler at once that a request is waiting with no ready worker (an `lb.demand` event on the engine's
   * event stream, which the scheduler follows), so scaling from zero does not wait for its next pass.
   */
  async demand(endpointId: string): Promise<void> {
    await this.redis.xadd(
      this.keys.events,
      'MAXLEN',
      '~',
      JOB_EVENTS_MAX_LEN,
      '*',
      ...eventEntry('lb.demand', endpointId, {}),
    );
  }

  /** Every live replica's traffic of one endpoint. */
  async view(endpointId: string, now = Date.now()): Promise<LbTrafficView> {
    const fields = await this.redis.hvals(this.key(endpointId));
    return mergeLbSnapshots(
      fields.map((field) => JSON.parse(field) as LbRouterSnapshot),
      now,
    );
  }

  private key(endpointId: string): string {
    return `${this.keys.endpointPrefix(endpointId)}${LB_KEY}`;
  }
}
