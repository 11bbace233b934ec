import { V1MicroTime, type CoordinationV1Api, type V1Lease, type V1LeaseSpec } from '@kubernetes/client-node';
import { isConflict, isNotFound } from './errors';

/** Reads the time; injectable so tests can move it by hand. */
export interface Clock {
  now(): number;
}

/** The Lease calls the elector makes. */
export type LeaseApi = Pick<
  CoordinationV1Api,
  'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'
>;

/** Settings of one election (one Lease object). */
export interface LeaderElectorOptions {
  coordination: LeaseApi;
  /** Lease name and namespace (coordination.k8s.io/v1). */
  name: string;
  namespace: string;
  /** Unique per process, e.g. pod name + random suffix. */
  identity: string;
  /** How long a lease stays valid without renewal; candidates wait this long after the last change they saw. */
  leaseDurationMs: number;
  /** How often the leader renews. */
  renewMs: number;
  /** How often a candidate tries to acquire. */
  retryMs: number;
  /**
   * The leader gives up when it has not renewed for this long, so it stops before anyone else may take over.
   * Must be below leaseDurationMs; defaults to two thirds of it.
   */
  renewDeadlineMs?: number;
  onStartedLeading: () => void;
  /** Leadership was lost or released; the elector goes on as a candidate unless stopped. */
  onStoppedLeading: () => void;
  /** Failed API calls (they only delay the next attempt). */
  onError?: (error: unknown) => void;
  clock?: Clock;
}

interface Observed {
  resourceVersion: string;
  holder: string;
  renewTime: string;
  durationMs: number;
  /** Local time the record was last seen to change; expiry is judged on it, so clock skew does not matter. */
  seenAt: number;
}

function timeKey(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value ?? '');
}

/**
 * Leader election on a Lease with optimistic concurrency: every write carries the resourceVersion last read, so
 * of two candidates racing for an expired lease exactly one write succeeds (the other gets 409). Like client-go,
 * candidates judge expiry by when *they* last saw the record change, never by comparing clocks across hosts.
 * The current holder, and whoever finds it empty or expired, writes `holderIdentity = identity`.
 */
export class LeaderElector {
  private readonly clock: Clock;
  private readonly renewDeadlineMs: number;
  private observed: Observed | undefined;
  private leading = false;
  private lastRenewAt = 0;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectorOptions) {
    this.clock = options.clock ?? { now: () => Date.now() };
    this.renewDeadlineMs = options.renewDeadlineMs ?? Math.floor((options.leaseDurationMs * 2) / 3);
    if (!(options.renewMs > 0 && options.retryMs > 0)) throw new RangeError('renewMs and retryMs must be positive');
    if (!(this.renewDeadlineMs > options.renewMs && this.renewDeadlineMs < options.leaseDurationMs)) {
      throw new RangeError('Need renewMs < renewDeadlineMs < leaseDurationMs');
    }
    if (options.leaseDurationMs < 1000)
      throw new RangeError('leaseDurationMs must be at least 1000 (whole seconds on the Lease)');
  }

  /** Whether this process currently holds the lease. */
  isLeader(): boolean {
    return this.leading;
  }

  /** Run the election until stop(): acquire, renew every renewMs, retry every retryMs. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.runLoop();
  }

  /** Stop, and if leading release the lease so a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
    if (this.leading) {
      await this.release().catch((error: unknown) => this.options.onError?.(error));
      this.setLeading(false);
    }
  }

  /**
   * One election step: try to acquire or renew, then update leadership. Returns whether this process leads.
   * The run loop calls it; tests call it directly with a fake clock.
   */
  async tick(): Promise<boolean> {
    const now = this.clock.now();
    let ok = false;
    try {
      ok = await this.tryAcquireOrRenew(now);
    } catch (error) {
      this.options.onError?.(error);
    }
    if (ok) {
      this.lastRenewAt = now;
      this.setLeading(true);
    } else if (this.leading && this.clock.now() - this.lastRenewAt >= this.renewDeadlineMs) {
      this.setLeading(false);
    }
    return this.leading;
  }

  private async runLoop(): Promise<void> {
    while (this.running) {
      await this.tick();
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.leading ? this.options.renewMs : this.options.retryMs);
      });
      this.timer = undefined;
      this.wake = undefined;
    }
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    try {
      if (leading) this.options.onStartedLeading();
      else this.options.onStoppedLeading();
    } catch (error) {
      // A failing callback must not kill the election loop; leadership state is already updated.
      this.options.onError?.(error);
    }
  }

  private observe(lease: V1Lease, now: number): Observed {
    const spec = lease.spec ?? {};
    const next = {
      resourceVersion: lease.metadata?.resourceVersion ?? '',
      holder: spec.holderIdentity ?? '',
      renewTime: timeKey(spec.renewTime),
      durationMs: (spec.leaseDurationSeconds ?? 0) * 1000,
    };
    const previous = this.observed;
    const unchanged = previous && previous.holder === next.holder && previous.renewTime === next.renewTime;
    this.observed = { ...next, seenAt: unchanged ? previous.seenAt : now };
    return this.observed;
  }

  private spec(now: number, current: V1LeaseSpec | undefined): V1LeaseSpec {
    const mine = current?.holderIdentity === this.options.identity;
    return {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.options.leaseDurationMs / 1000),
      acquireTime:
        mine && current?.acquireTime ? new V1MicroTime(new Date(current.acquireTime).getTime()) : new V1MicroTime(now),
      renewTime: new V1MicroTime(now),
      leaseTransitions: (current?.leaseTransitions ?? 0) + (mine || !current ? 0 : 1),
    };
  }

  private async tryAcquireOrRenew(now: number): Promise<boolean> {
    const { coordination, name, namespace, identity } = this.options;
    let lease: V1Lease;
    try {
      lease = await coordination.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return this.create(now);
    }
    const seen = this.observe(lease, now);
    const heldByOther = seen.holder !== '' && seen.holder !== identity;
    if (heldByOther && seen.seenAt + seen.durationMs > now) return false;
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...lease.metadata, name, namespace, resourceVersion: seen.resourceVersion },
      spec: this.spec(now, lease.spec),
    };
    try {
      const updated = await coordination.replaceNamespacedLease({ name, namespace, body });
      this.observe(updated, now);
      return true;
    } catch (error) {
      if (isConflict(error)) return false; // someone else wrote first; re-read next time
      throw error;
    }
  }

  private async create(now: number): Promise<boolean> {
    const { coordination, name, namespace } = this.options;
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace },
      spec: this.spec(now, undefined),
    };
    try {
      const created = await coordination.createNamespacedLease({ namespace, body });
      this.observe(created, now);
      return true;
    } catch (error) {
      if (isConflict(error)) return false;
      throw error;
    }
  }

  /** Hand the lease back: empty holder and a 1 s duration, so candidates take it on their next try. */
  private async release(): Promise<void> {
    const { coordination, name, namespace, identity } = this.options;
    const lease = await coordination.readNamespacedLease({ name, namespace });
    if (lease.spec?.holderIdentity !== identity) return;
    const now = this.clock.now();
    const body: V1Lease = {
      ...lease,
      spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: new V1MicroTime(now) },
    };
    await coordination.replaceNamespacedLease({ name, namespace, body });
  }
}
