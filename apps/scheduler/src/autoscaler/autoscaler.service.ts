import type { ScalableEndpoint, WorkerPrices, WorkerRow, WorkerStateEntry } from '@runplane/endpoints';
import {
  drainedOut,
  EMPTY_VIEW,
  type JobScalingReader,
  type LbTrafficView,
  type LoadBalancerTraffic,
  type ScalingView,
} from '@runplane/jobs';
import { replacementBackoffMs, requestScalingPlan, scalingPlan, type ScalingWorker } from '@runplane/placement';
import { type DecisionInput, decisionInput } from '../metrics/decision-reasons';
import { IdleClocks } from './idle-clocks';
import type { WorkerFleet } from './worker-fleet';
import type { WorkerRemoval } from './worker-removal';
import { type ColdStarts, noteFromPass } from '../cold-start/cold-starts';
import { logPlacementFailure, logQueuePlan, logScaling } from './scaling-log';
import { StatePublisher } from './state-publisher';
import { type AddResult, type EndpointPass, waitingOf } from './waiting-reason';
import { type EndpointInputs, idleQueueEndpoint, type Plan, runningByEndpoint, settingsOf } from './pass-inputs';

/** What passes scale on: the job engine's queues (queue endpoints) and the proxied requests (load-balancing ones). */
export interface ScalingSignals {
  jobs: Pick<JobScalingReader, 'views'>;
  traffic: Pick<LoadBalancerTraffic, 'view'>;
}

/** Where the autoscaler reports what it sees: the endpoint states it publishes, the workers' cold starts. */
export interface AutoscalerReports {
  states: ConstructorParameters<typeof StatePublisher>[0];
  coldStarts: ColdStarts;
}

/** Crash bookkeeping per endpoint: consecutive worker failures and when the last one happened. */
interface Failures {
  count: number;
  lastAt: number;
  reason: string;
}

/**
 * The autoscaler: for every endpoint, compares its worker Pods with the job engine's queue and heartbeat view (a
 * load-balancing endpoint: with the job-routers' waiting and in-flight requests), adds workers (placed by GPU type priority, through the same locked placement as Pods) or removes idle ones, and publishes
 * worker states. Workers are Pod rows; the reconciler starts and stops their processes.
 */
export class AutoscalerService {
  /** How long each worker has been idle, as seen by this scheduler (a restart starts the idle clocks anew). */
  private readonly idle = new IdleClocks();
  /** Workers the engine has heard from at least once (no longer initializing). */
  private readonly seen = new Set<string>();
  private readonly failures = new Map<string, Failures>();
  private readonly unhealthy = new Map<string, WorkerStateEntry[]>();
  private readonly publisher: StatePublisher;
  private readonly coldStarts: ColdStarts;
  /** Each endpoint's queued jobs and workers added by the pass under way, for its waiting reason. */
  private readonly passes = new Map<string, EndpointPass>();
  /** Queue endpoints the last pass found idle (see {@link isIdle}): the next passes skip them while they stay so. */
  private idleEndpoints = new Set<string>();
  /** Told about each pass's decision per endpoint (metrics). */
  onDecision: (decision: DecisionInput) => void = () => undefined;

  constructor(
    private readonly fleet: WorkerFleet,
    private readonly signals: ScalingSignals,
    private readonly removal: WorkerRemoval,
    reports: AutoscalerReports,
    private readonly clock: () => number = () => Date.now(),
  ) {
    this.publisher = new StatePublisher(reports.states, clock);
    this.coldStarts = reports.coldStarts;
  }

  /** A job finished on a worker: its idle time starts now. */
  noteFinished(workerId: string): void {
    this.idle.finished(workerId, this.clock());
  }

  /** A worker took a job: the first one ends its cold start. */
  async noteStarted(workerId: string): Promise<void> {
    await this.coldStarts.note(workerId, { firstJob: new Date(this.clock()) });
  }

  /**
   * One pass over every endpoint. Its reads are one per pass, not one per endpoint: the rows (the endpoints written
   * since the previous pass, kept between passes; every worker; the prices), the workers' cold starts (one query for
   * those not read yet) and the queue endpoints' views (one Redis call per few hundred endpoints); the states it
   * publishes are written together at the end. An endpoint idle since the previous pass is skipped.
   */
  async scaleAll(): Promise<void> {
    const { endpoints, workers, prices } = await this.fleet.snapshot();
    this.coldStarts.retain(workers.map((worker) => worker.id));
    const running = runningByEndpoint(workers);
    await this.coldStarts.preload([...running.values()].flat().map((worker) => worker.id));
    const queueEndpoints = endpoints.filter((endpoint) => endpoint.type !== 'LOAD_BALANCER');
    const views = await this.signals.jobs.views(queueEndpoints.map((endpoint) => endpoint.id));
    const published: Promise<void>[] = [];
    const idleNow = new Set<string>();
    for (const endpoint of endpoints) {
      const view = views.get(endpoint.id) ?? EMPTY_VIEW;
      const rows = running.get(endpoint.id) ?? [];
      if (this.isIdle(endpoint, rows, view)) {
        idleNow.add(endpoint.id);
        // Scaled once since it became idle (its empty state published): another pass would decide and write nothing.
        if (this.idleEndpoints.has(endpoint.id)) continue;
      }
      await this.scale(endpoint, { rows, view, published }, prices);
    }
    this.idleEndpoints = idleNow;
    await Promise.all(published);
  }

  /** An idle queue endpoint (see {@link idleQueueEndpoint}) with no failure to report. */
  private isIdle(endpoint: ScalableEndpoint, rows: readonly WorkerRow[], view: ScalingView): boolean {
    return (
      idleQueueEndpoint(endpoint, rows, view) && !this.failures.has(endpoint.id) && !this.unhealthy.has(endpoint.id)
    );
  }

  /** The reconciler found a worker's process dead: mark it unhealthy, remove it, back off before replacing it. */
  async workerFailed(row: WorkerRow, reason: string): Promise<void> {
    const endpointId = row.endpointId as string;
    // A worker that reported its failure is failed once: its exit that follows changes nothing.
    if (this.unhealthy.get(endpointId)?.some((entry) => entry.workerId === row.id)) return;
    const previous = this.failures.get(endpointId);
    this.failures.set(endpointId, { count: (previous?.count ?? 0) + 1, lastAt: this.clock(), reason });
    this.unhealthy.set(
      endpointId,
      [...(this.unhealthy.get(endpointId) ?? []), { workerId: row.id, state: 'unhealthy' as const, reason }].slice(-10),
    );
    await this.remove(row);
  }

  /**
   * The worker reported itself unhealthy (a failed fitness check) and is exiting: it fails now, with the reason it gave.
   * When its exit was seen first, the reason it gave is added to the one already published.
   */
  async workerReported(workerId: string, reason: string): Promise<void> {
    if (this.amendFailure(workerId, reason)) return;
    const row = await this.fleet.worker(workerId);
    // Checked again after the read, in the same step as failing it: the exit may have been seen meanwhile.
    if (row && !this.amendFailure(workerId, reason)) await this.workerFailed(row, reason);
  }

  /** Puts `reason` before the published reason of a worker that failed already; false when it has not failed. */
  private amendFailure(workerId: string, reason: string): boolean {
    for (const [endpointId, entries] of this.unhealthy) {
      const entry = entries.find((candidate) => candidate.workerId === workerId);
      if (!entry) continue;
      if (entry.reason?.startsWith(reason)) return true;
      const combined = `${reason} (${entry.reason ?? 'exited'})`;
      this.unhealthy.set(
        endpointId,
        entries.map((candidate) => (candidate === entry ? { ...entry, reason: combined } : candidate)),
      );
      const failures = this.failures.get(endpointId);
      if (failures && failures.reason === entry.reason)
        this.failures.set(endpointId, { ...failures, reason: combined });
      return true;
    }
    return false;
  }

  /** The worker asked to be recycled (`refresh_worker` / stopPod): remove it; a fresh one replaces it if needed. */
  async recycle(workerId: string): Promise<void> {
    const row = await this.fleet.worker(workerId);
    if (row) await this.remove(row);
  }

  private async scale(endpoint: ScalableEndpoint, pass: EndpointInputs, prices: WorkerPrices): Promise<void> {
    const { rows, view } = pass;
    const now = this.clock();
    const { workers, plan, queue, drained } =
      endpoint.type === 'LOAD_BALANCER'
        ? await this.requestPlan(endpoint, rows, now)
        : this.queuePlan(endpoint, rows, view, now);
    this.passes.set(endpoint.id, { endpoint, queue, before: workers.length });
    await noteFromPass(this.coldStarts, rows, workers, new Date(now));
    // Workers the cluster cannot schedule (their machine filled up meanwhile) wait: throttled, with the cluster's reason.
    const throttled: WorkerStateEntry[] = rows
      .filter((row) => row.observedPhase === 'CREATING' && row.statusMessage?.startsWith('Unschedulable: '))
      .map((row) => ({ workerId: row.id, state: 'throttled', reason: row.statusMessage ?? undefined }));
    if (plan.add > 0) {
      const { added, refusal } = await this.addWorkers(endpoint, plan.add, prices, now);
      if (refusal) throttled.push({ workerId: `throttled-${added + 1}`, state: 'throttled', reason: refusal });
      this.onDecision(decisionInput(endpoint, workers.length, { added, removed: 0 }));
    }
    const removed = new Set<string>();
    for (const id of plan.remove) {
      const row = rows.find((worker) => worker.id === id);
      if (!row) continue;
      if (await this.removeIdle(endpoint, row, now)) removed.add(id);
      // Else it took a job since the view was read: it stays, busy again.
      else this.idle.busy(id, now);
    }
    for (const row of drained ?? []) await this.remove(row);
    this.onDecision(decisionInput(endpoint, workers.length, { added: 0, removed: removed.size }));
    if (rows.length > 0 && workers.some((worker) => !worker.initializing)) {
      // A worker was heard from: the crash loop (if any) is over.
      this.failures.delete(endpoint.id);
      this.unhealthy.delete(endpoint.id);
    }
    const write = this.publish(
      endpoint.id,
      workers.filter((worker) => !removed.has(worker.id)),
      throttled,
    );
    // Awaited with the pass's other writes; a pass that fails before then leaves it to fail on its own.
    write.catch(() => undefined);
    pass.published.push(write);
  }

  private queuePlan(endpoint: ScalableEndpoint, rows: WorkerRow[], view: ScalingView, now: number): Plan {
    const workers = rows.map((row) => this.scalingWorker(row, view, now));
    const plan = scalingPlan(
      settingsOf(endpoint),
      {
        scalingQueued: view.scalingQueued,
        queued: view.queued,
        inProgress: view.inProgress,
        oldestScalingWaitMs: view.oldestScalingQueuedAt === null ? null : now - view.oldestScalingQueuedAt,
      },
      workers,
    );
    logQueuePlan(endpoint, { view, now, workers, plan });
    return { workers, plan, queue: { queued: view.queued, scalingQueued: view.scalingQueued } };
  }

  /**
   * A load-balancing endpoint scales on its requests; each decision is logged with the signals behind it. Its draining
   * workers (see {@link removeIdle}) serve no more: they are left out, and those done draining are removed.
   */
  private async requestPlan(endpoint: ScalableEndpoint, rows: WorkerRow[], now: number): Promise<Plan> {
    const traffic = await this.signals.traffic.view(endpoint.id, now);
    const draining = await this.removal.drainingSince(
      endpoint.id,
      rows.map((row) => row.id),
    );
    const drained = rows.filter((row) => {
      const since = draining.get(row.id);
      return since !== undefined && drainedOut(traffic, row.id, since, now);
    });
    const workers = rows.filter((row) => !draining.has(row.id)).map((row) => this.serverWorker(row, traffic, now));
    let drainingInFlight = 0;
    for (const id of draining.keys()) drainingInFlight += traffic.inFlight.get(id) ?? 0;
    const signals = {
      waiting: traffic.waiting,
      // Requests still on draining workers need no new one.
      inFlight: traffic.totalInFlight - drainingInFlight,
      requestsPerSecond: traffic.requestsPerSecond,
    };
    const plan = requestScalingPlan(settingsOf(endpoint), signals, workers);
    const before = workers.length;
    if (plan.add > 0) logScaling(endpoint.id, { before, after: before + plan.add, reason: plan.reason });
    if (plan.remove.length > 0)
      logScaling(endpoint.id, { before, after: before - plan.remove.length, reason: `idle: ${plan.reason}` });
    return { workers, plan, queue: null, drained };
  }

  /**
   * Removes an idle worker: a queue worker at once if it still holds no job (false when it took one), a load-balancing
   * worker by draining it first (a request routed to it just before stays in flight until it is done).
   */
  private async removeIdle(endpoint: ScalableEndpoint, row: WorkerRow, now: number): Promise<boolean> {
    if (endpoint.type !== 'LOAD_BALANCER') return this.remove(row, { onlyIfIdle: true });
    await this.removal.drain(row, now);
    return true;
  }

  /**
   * A load-balancing worker is busy while a request is in flight on it (its idle time counts from its last one), and
   * initializing until its server has an address (it speaks no worker protocol to be heard from).
   */
  private serverWorker(row: WorkerRow, traffic: LbTrafficView, now: number): ScalingWorker {
    const busy = (traffic.inFlight.get(row.id) ?? 0) > 0;
    const started = row.serviceAddress !== null || busy;
    if (started) this.seen.add(row.id);
    const idleForMs = this.idle.observe(row.id, busy, row.lastStartedAt?.getTime() ?? row.createdAt.getTime(), now);
    return { id: row.id, initializing: !started, busy, idleForMs };
  }

  private scalingWorker(row: WorkerRow, view: ScalingView, now: number): ScalingWorker {
    const engine = view.workers.get(row.id);
    if (engine) this.seen.add(row.id);
    const busy = (engine?.jobs ?? 0) > 0;
    const idleForMs = this.idle.observe(row.id, busy, row.lastStartedAt?.getTime() ?? row.createdAt.getTime(), now);
    return { id: row.id, initializing: !this.seen.has(row.id), busy, idleForMs };
  }

  /** Adds up to `count` workers at once; says how many, and why not all when a crash backoff is running. */
  private async addWorkers(
    endpoint: ScalableEndpoint,
    count: number,
    prices: WorkerPrices,
    now: number,
  ): Promise<AddResult> {
    const failures = this.failures.get(endpoint.id);
    const added: AddResult =
      failures && now - failures.lastAt < replacementBackoffMs(failures.count)
        ? {
            added: 0,
            refusal: `Waiting to replace a crashed worker (${failures.count} in a row): ${failures.reason}`,
            backoff: true,
          }
        : await this.fleet.add(endpoint, count, prices, new Date(now));
    const pass = this.passes.get(endpoint.id);
    if (pass) pass.added = added;
    if (added.refusal && pass)
      logPlacementFailure(endpoint.id, { before: pass.before, wanted: count, placed: added.added }, added.refusal);
    return added;
  }

  /** Removes a worker (see {@link WorkerRemoval}) and forgets its clocks; false when `onlyIfIdle` kept it. */
  private async remove(
    row: Pick<WorkerRow, 'id' | 'accountId' | 'endpointId'>,
    { onlyIfIdle = false } = {},
  ): Promise<boolean> {
    if (!(await this.removal.remove(row, { at: this.clock(), onlyIfIdle }))) return false;
    this.idle.forget(row.id);
    this.seen.delete(row.id);
    this.coldStarts.forget(row.id);
    return true;
  }

  /** Publishes the endpoint's worker states with why its queued jobs wait (see {@link waitingOf}). */
  private async publish(endpointId: string, workers: ScalingWorker[], throttled: WorkerStateEntry[]): Promise<void> {
    const state = { workers, unhealthy: this.unhealthy.get(endpointId) ?? [], throttled };
    const pass = this.passes.get(endpointId);
    this.passes.delete(endpointId);
    const seen = { ...state, crash: this.failures.get(endpointId) ?? null, at: new Date(this.clock()) };
    const waiting = pass ? waitingOf(pass, seen, this.coldStarts) : null;
    await this.publisher.publish(endpointId, { ...state, waiting });
  }
}
