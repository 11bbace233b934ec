import type { ScalableEndpoint, WorkerRow } from '@runplane/endpoints';
import type { ScalingView } from '@runplane/jobs';
import type { ScalingDecision, ScalingSettings, ScalingWorker } from '@runplane/placement';
import type { QueueCounts } from './waiting-reason';

/** What a pass read for one endpoint: its running workers, its queue view (a queue endpoint), where its state goes. */
export interface EndpointInputs {
  rows: WorkerRow[];
  /** The job engine's view (empty for a load-balancing endpoint, which scales on its requests). */
  view: ScalingView;
  /** The pass's state writes, awaited together when it ends. */
  published: Promise<void>[];
}

/** One endpoint's workers as a pass sees them, what it decided and (a queue endpoint) its queued jobs. */
export interface Plan {
  /** The workers that serve (a load-balancing endpoint's draining ones left out). */
  workers: ScalingWorker[];
  plan: Pick<ScalingDecision, 'add' | 'remove'>;
  queue: QueueCounts | null;
  /** Load-balancing workers done draining: removed now. */
  drained?: WorkerRow[];
}

export function settingsOf(endpoint: ScalableEndpoint): ScalingSettings {
  return {
    scalerType: endpoint.scalerType,
    scalerValue: endpoint.scalerValue,
    workersMin: endpoint.workersMin,
    workersMax: endpoint.workersMax,
    idleTimeout: endpoint.idleTimeout,
  };
}

/** The workers meant to run (desiredStatus RUNNING) by endpoint, in the order read: one walk over every worker. */
export function runningByEndpoint(workers: readonly WorkerRow[]): Map<string, WorkerRow[]> {
  const byEndpoint = new Map<string, WorkerRow[]>();
  for (const worker of workers) {
    if (worker.desiredStatus !== 'RUNNING' || worker.endpointId === null) continue;
    const rows = byEndpoint.get(worker.endpointId);
    if (rows) rows.push(worker);
    else byEndpoint.set(worker.endpointId, [worker]);
  }
  return byEndpoint;
}

/**
 * A queue endpoint with nothing to scale on: no workers and none to keep, no job queued or running, no worker heard
 * from. A pass adds and removes nothing for it and publishes an empty state.
 */
export function idleQueueEndpoint(endpoint: ScalableEndpoint, rows: readonly WorkerRow[], view: ScalingView): boolean {
  return (
    endpoint.type !== 'LOAD_BALANCER' &&
    endpoint.workersMin === 0 &&
    rows.length === 0 &&
    view.queued === 0 &&
    view.inProgress === 0 &&
    view.workers.size === 0
  );
}
