import type { LbWorkerRow } from '@runplane/endpoints';
import { DEFAULT_HEALTH_CHECK_PATH, type HealthProbe, type WorkerHealth } from './worker-health';

/** A worker's row, and whether the scheduler is draining it (retired: it is about to be removed). */
export interface PoolWorkerRow extends LbWorkerRow {
  draining: boolean;
}

/** One worker of a load-balancing endpoint as this replica sees it. */
export interface UpstreamWorker {
  readonly id: string;
  row: PoolWorkerRow;
  /** The last health check's answer; `unknown` while the workload is not running or has no address yet. */
  health: WorkerHealth | 'unknown';
  /** Taken out after a failed connection, until its health check answers 200 again. */
  down: boolean;
  /** This replica's requests in flight on it. */
  inFlight: number;
}

/** Reads an endpoint's workers (their rows in Postgres and the scheduler's retired marks, wired by the module). */
export interface WorkerSource {
  workers(endpointId: string): Promise<PoolWorkerRow[]>;
}

/** Where the rows and the retired marks come from (LoadBalancerUpstreamsRepository, WorkerRetirement). */
export interface WorkerSourceParts {
  rows: { workers(endpointId: string): Promise<LbWorkerRow[]> };
  retirement: { retiredAmong(endpointId: string, workerIds: readonly string[]): Promise<Map<string, number>> };
}

/** The workers of an endpoint as its pool reads them: the rows, each draining when the scheduler retired it. */
export function workerSource({ rows, retirement }: WorkerSourceParts): WorkerSource {
  return {
    async workers(endpointId) {
      const found = await rows.workers(endpointId);
      const retired = await retirement.retiredAmong(
        endpointId,
        found.map((row) => row.id),
      );
      return found.map((row) => ({ ...row, draining: retired.has(row.id) }));
    },
  };
}

function isReady(worker: UpstreamWorker): boolean {
  return worker.health === 'ready' && !worker.down && !worker.row.draining;
}

/**
 * The workers of one load-balancing endpoint, refreshed from Postgres and health-checked on each {@link refresh}:
 * only a worker whose health check answered 200 (and whose last connection did not fail) takes requests, the one
 * with the fewest requests in flight first. Requests with no ready worker wait here for one. A draining worker gets no
 * new request; those in flight on it go on, and the snapshot says it drains (see `drainedOut` in `@runplane/jobs`).
 */
export class EndpointPool {
  private readonly workers = new Map<string, UpstreamWorker>();
  private readonly waiters = new Set<() => void>();
  private refreshing: Promise<void> | null = null;

  constructor(
    readonly endpointId: string,
    private readonly source: WorkerSource,
    private readonly probe: HealthProbe,
  ) {}

  /** Re-reads the workers and checks their health; concurrent callers share one pass. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readAndCheck().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async readAndCheck(): Promise<void> {
    const rows = await this.source.workers(this.endpointId);
    const ids = new Set(rows.map((row) => row.id));
    for (const id of this.workers.keys()) if (!ids.has(id)) this.workers.delete(id);
    for (const row of rows) {
      const known = this.workers.get(row.id);
      if (known && known.row.serviceAddress === row.serviceAddress) known.row = row;
      else this.workers.set(row.id, { id: row.id, row, health: 'unknown', down: false, inFlight: 0 });
    }
    await Promise.all([...this.workers.values()].map((worker) => this.check(worker)));
    if ([...this.workers.values()].some(isReady)) this.wakeWaiters();
  }

  private async check(worker: UpstreamWorker): Promise<void> {
    const { observedPhase, serviceAddress, healthAddress, healthCheckPath, draining } = worker.row;
    if (draining) return;
    if (observedPhase !== 'RUNNING' || !serviceAddress || !healthAddress) {
      worker.health = 'unknown';
      return;
    }
    const health = await this.probe(healthAddress, healthCheckPath ?? DEFAULT_HEALTH_CHECK_PATH);
    worker.health = health;
    if (health === 'ready') worker.down = false;
  }

  /** The ready worker with the fewest requests in flight, counted one more; null when none is ready. */
  take(): UpstreamWorker | null {
    let best: UpstreamWorker | null = null;
    for (const worker of this.workers.values()) {
      if (isReady(worker) && (!best || worker.inFlight < best.inFlight)) best = worker;
    }
    if (best) best.inFlight += 1;
    return best;
  }

  /** Ends a request taken with {@link take}. */
  release(worker: UpstreamWorker): void {
    worker.inFlight = Math.max(0, worker.inFlight - 1);
  }

  /** Takes a worker out at once (its connection failed): no request goes to it before its next 200. */
  markDown(worker: UpstreamWorker): void {
    worker.down = true;
  }

  /** Takes a ready worker, waiting up to `timeoutMs` for one; null when none came or `signal` aborted. */
  async waitAndTake(timeoutMs: number, signal: AbortSignal): Promise<UpstreamWorker | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const worker = this.take();
      if (worker) return worker;
      const remaining = deadline - Date.now();
      if (remaining <= 0 || signal.aborted) return null;
      await this.nextReadiness(remaining, signal);
    }
  }

  private nextReadiness(timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wakeWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** This replica's requests in flight, by worker id (workers with none left out). */
  inFlight(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const worker of this.workers.values()) if (worker.inFlight > 0) counts[worker.id] = worker.inFlight;
    return counts;
  }

  /** The workers this replica knows are draining. */
  draining(): string[] {
    return [...this.workers.values()].filter((worker) => worker.row.draining).map((worker) => worker.id);
  }

  /** Whether any request is in flight on this replica. */
  busy(): boolean {
    return [...this.workers.values()].some((worker) => worker.inFlight > 0);
  }

  /** The workers as last seen, for explaining why none is ready. */
  snapshot(): readonly UpstreamWorker[] {
    return [...this.workers.values()];
  }
}
