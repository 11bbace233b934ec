import type { LedgerEntry } from '@runplane/billing';
import { replacementBackoffMs } from '@runplane/placement';
import type { ObservedFields, PodRecord, PodState } from '@runplane/workloads';
import { forEachLimited } from '../batching/micro-batch';
import type { ComputeDriver, WorkloadStatus } from '../drivers/compute-driver';
import type { PodUsageShape, UsageRecorder } from '../usage/usage-recorder';
import type { PodRows } from './pod-rows';
import type { WorkloadSpecs } from './workload-specs';

/** Pods a pass works on at once. */
const PASS_CONCURRENCY = 500;

/** Told when a worker's process died while it should run (the autoscaler replaces it, with backoff). */
export type WorkerFailedHandler = (row: PodState, reason: string) => Promise<void>;

/** What the reconciler tells of failed workers, and how it runs. */
export interface ReconcilerOptions {
  workerFailed: WorkerFailedHandler;
  /** Told what the driver reports of each worker (its cold-start phases). */
  workerObserved?: (row: PodState, status: WorkloadStatus) => Promise<void>;
  clock?: () => Date;
  /** Pods worked on at once (each waits on the driver and on batched queries, not on the CPU). */
  concurrency?: number;
}

/** What usage billing needs of a Pod row. */
export function usageShape(row: PodRecord): PodUsageShape {
  return {
    podId: row.id,
    accountId: row.accountId,
    endpointId: row.endpointId,
    gpuTypeId: row.gpuTypeId,
    gpuCount: row.gpuCount,
    cpuFlavorId: row.cpuFlavorId,
    cloudType: row.cloudType,
    interruptible: row.interruptible,
    dataCenterId: row.dataCenterId,
    costPerHr: row.costPerHr.toFixed(6),
    templateId: row.templateId,
    imageName: row.image,
    containerDiskInGb: row.containerDiskInGb,
    volumeInGb: row.volumeInGb,
  };
}

/** What a driver status (or none) writes to the Pod row. */
export function observed(status: WorkloadStatus | null, desired: PodState['desiredStatus']): ObservedFields {
  if (!status)
    return {
      observedPhase: desired === 'RUNNING' ? 'PENDING' : 'EXITED',
      statusMessage: null,
      publicIp: null,
      portMappings: null,
      serviceAddress: null,
      healthAddress: null,
      lastStartedAt: null,
    };
  // A stopped or failed workload serves nothing: its addresses are cleared, so the job-router stops sending to them.
  const serving = status.phase === 'RUNNING' || status.phase === 'CREATING';
  return {
    observedPhase: status.phase,
    statusMessage: status.reason,
    publicIp: status.publicIp,
    portMappings: status.phase === 'RUNNING' ? status.portMappings : null,
    serviceAddress: serving ? status.serviceAddress : null,
    healthAddress: serving ? status.healthAddress : null,
    lastStartedAt: status.phase === 'RUNNING' ? status.startedAt : null,
  };
}

/** True when the row already shows these observed fields (most passes change nothing: no write then). */
function sameObserved(row: PodState, fields: ObservedFields): boolean {
  return (
    row.observedPhase === fields.observedPhase &&
    row.statusMessage === fields.statusMessage &&
    row.publicIp === fields.publicIp &&
    JSON.stringify(row.portMappings ?? null) === JSON.stringify(fields.portMappings) &&
    row.serviceAddress === fields.serviceAddress &&
    row.healthAddress === fields.healthAddress &&
    (fields.lastStartedAt === null || row.lastStartedAt?.getTime() === fields.lastStartedAt.getTime())
  );
}

/**
 * Drives the driver towards the desired state in Postgres and writes what it observes back. Idempotent and
 * restart-safe: every pass compares the Pod rows with the driver's full list, so a restarted scheduler adopts running
 * workloads, removes workloads whose row is gone (no orphans), and never starts a second copy of one (no duplicates).
 */
export class PodReconciler {
  /** Consecutive crashes per Pod, for restart backoff (memory only: a restart just retries sooner). */
  private readonly crashes = new Map<string, number>();
  /** Generation last run per Pod and whether that run was a reset (for wiping the container disk). */
  private readonly lastGeneration = new Map<string, number>();
  private readonly workerFailed: WorkerFailedHandler;
  private readonly workerObserved: NonNullable<ReconcilerOptions['workerObserved']>;
  private readonly clock: () => Date;
  private readonly concurrency: number;

  constructor(
    private readonly driver: ComputeDriver,
    private readonly pods: PodRows,
    private readonly specs: WorkloadSpecs,
    private readonly usage: UsageRecorder,
    options: ReconcilerOptions,
  ) {
    this.workerFailed = options.workerFailed;
    this.workerObserved = options.workerObserved ?? (async () => undefined);
    this.clock = options.clock ?? (() => new Date());
    this.concurrency = options.concurrency ?? PASS_CONCURRENCY;
  }

  /** One full pass over every Pod and workload. */
  async reconcile(): Promise<void> {
    const [rows, workloads, entries] = await Promise.all([
      this.pods.placed(),
      this.driver.list(),
      this.usage.podEntries(),
    ]);
    const byPod = new Map(workloads.map((status) => [status.podId, status]));
    const ledger = new Map(entries.map((entry) => [entry.resourceId, entry]));
    await forEachLimited(rows, this.concurrency, (row) =>
      this.reconcilePod(row, byPod.get(row.id) ?? null, ledger.get(row.id) ?? null),
    );
    for (const row of rows) byPod.delete(row.id);
    // Workloads without a Pod row: the Pod was deleted (or its endpoint was). Remove them.
    await forEachLimited([...byPod.values()], this.concurrency, (orphan) => this.driver.delete(orphan.podId));
    // This pass did not touch the entries of Pods it did not see, so the ones read above are current.
    const placed = new Set(rows.map((row) => row.id));
    await this.settleGone(entries.filter((entry) => !placed.has(entry.resourceId)));
  }

  private async reconcilePod(row: PodState, status: WorkloadStatus | null, entry: LedgerEntry | null): Promise<void> {
    const now = this.clock();
    let current: WorkloadStatus | null = status;
    let interrupted = false;
    if (row.desiredStatus === 'TERMINATED') {
      if (current) await this.driver.delete(row.id);
      const fields: ObservedFields = { ...observed(null, 'EXITED'), observedPhase: 'TERMINATED' };
      if (!sameObserved(row, fields)) await this.pods.writeObserved(row.id, fields);
      await this.observeUsage(row.id, entry, false, now);
      return;
    }
    if (row.desiredStatus === 'EXITED') {
      if (current?.phase === 'RUNNING' || current?.phase === 'CREATING') {
        await this.driver.stop(row.id);
        current = await this.driver.status(row.id);
      }
    } else if (row.endpointId === null && current?.preempted && current.generation === row.generation) {
      // An interruptible Pod whose GPUs were reclaimed stops, as a spot Pod does; its user may start it again.
      interrupted = true;
    } else {
      const kept = await this.keepRunning(row, current, now, entry);
      if (kept === undefined) return;
      current = kept;
    }
    const fields = observed(current, row.desiredStatus);
    // The stop and what was observed are one write: no reader sees the Pod stopped without the preemption's message.
    if (interrupted) await this.pods.markInterrupted(row.id, now, fields);
    else if (!sameObserved(row, fields)) await this.pods.writeObserved(row.id, fields);
    if (row.endpointId !== null && current) await this.workerObserved(row, current);
    const running = current?.phase === 'RUNNING';
    await this.observeUsage(
      row.id,
      entry,
      running,
      running ? (current?.startedAt ?? now) : (current?.finishedAt ?? now),
    );
  }

  /** Reports a usage transition, if this observation is one (reading the whole row only then). */
  private async observeUsage(podId: string, entry: LedgerEntry | null, running: boolean, at: Date): Promise<void> {
    if (!this.usage.changes(entry, running, at)) return;
    // A row deleted meanwhile is settled from its ledger entry on the next pass.
    const row = await this.pods.full(podId);
    if (row) await this.usage.observePod(usageShape(row), running, at, entry);
  }

  /** Starts, restarts (new generation) or crash-restarts the workload; undefined when the row was handed off. */
  private async keepRunning(
    row: PodState,
    status: WorkloadStatus | null,
    now: Date,
    entry: LedgerEntry | null,
  ): Promise<WorkloadStatus | null | undefined> {
    const sameGeneration = status !== null && status.generation === row.generation;
    if (sameGeneration && (status.phase === 'RUNNING' || status.phase === 'CREATING')) {
      if (status.phase === 'RUNNING') this.crashes.delete(row.id);
      return status;
    }
    if (sameGeneration && status.phase === 'FAILED') {
      if (row.endpointId !== null) {
        // A worker that died: record it stopped, then the autoscaler replaces it (crash loops back off there).
        await this.observeUsage(row.id, entry, false, status.finishedAt ?? now);
        await this.workerFailed(row, status.reason ?? 'exited');
        return undefined;
      }
      const crashes = (this.crashes.get(row.id) ?? 0) + 1;
      const since = now.getTime() - (status.finishedAt?.getTime() ?? 0);
      if (since < replacementBackoffMs(crashes)) return status;
      this.crashes.set(row.id, crashes);
    }
    // Stopped while no scheduler ran (`npm start` stops local processes with the platform): billing stops when it
    // did, not when the workload starts again.
    if (sameGeneration && status.phase === 'EXITED')
      await this.observeUsage(row.id, entry, false, status.finishedAt ?? now);
    const full = await this.pods.full(row.id);
    if (!full) return undefined;
    const reset = status !== null && status.generation !== row.generation;
    this.lastGeneration.set(row.id, row.generation);
    return this.driver.ensureRunning(await this.specs.build(full, reset));
  }

  /** Ledger entries whose Pod row is gone (of those given): their last stop and termination events. */
  private async settleGone(candidates: LedgerEntry[]): Promise<void> {
    if (candidates.length === 0) return;
    const existing = await this.pods.existing(candidates.map((entry) => entry.resourceId));
    for (const entry of candidates) {
      if (existing.has(entry.resourceId)) continue;
      await this.usage.podGone(entry, this.clock());
      this.crashes.delete(entry.resourceId);
      this.lastGeneration.delete(entry.resourceId);
    }
  }
}
