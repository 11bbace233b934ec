import { Logger } from '@nestjs/common';
import type { QueueSignals, ScalingSettings, ScalingWorker } from '@runplane/placement';

const logger = new Logger('Autoscaler');

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** Why a queue endpoint's pass adds workers, in words ("queue delay 4.2 s > 4 s"). Pure. */
export function queueAddReason(
  settings: ScalingSettings,
  signals: QueueSignals,
  workers: readonly ScalingWorker[],
): string {
  if (workers.length < settings.workersMin) return `${workers.length} worker(s) < workersMin ${settings.workersMin}`;
  if (workers.length === 0) return `${signals.scalingQueued} job(s) queued and no worker`;
  if (settings.scalerType === 'REQUEST_COUNT')
    return `${signals.scalingQueued} queued + ${signals.inProgress} in progress > ${settings.scalerValue} per worker × ${workers.length}`;
  return `queue delay ${seconds(signals.oldestScalingWaitMs ?? 0)} > ${settings.scalerValue} s`;
}

/** Why a queue endpoint's pass removes workers, in words. Pure. */
export function queueRemoveReason(
  settings: ScalingSettings,
  workers: readonly ScalingWorker[],
  desired: number,
): string {
  return workers.length > settings.workersMax
    ? `${workers.length} worker(s) > workersMax ${settings.workersMax}`
    : `idle for ≥ ${settings.idleTimeout} s with ${desired} worker(s) wanted`;
}

/** The words of one scaling decision: the endpoint, its worker count before and after, and why. Pure. */
export function scalingLine(endpointId: string, change: { before: number; after: number; reason: string }): string {
  const verb = change.after > change.before ? 'adding' : 'removing';
  const count = Math.abs(change.after - change.before);
  return `Endpoint ${endpointId}: ${verb} ${count} worker(s), ${change.before} → ${change.after}: ${change.reason}`;
}

/** Logs one scaling decision (info). */
export function logScaling(endpointId: string, change: { before: number; after: number; reason: string }): void {
  logger.log(scalingLine(endpointId, change));
}

/** A placement failure: how many workers were wanted, how many were placed, and why not all (info). */
export function logPlacementFailure(
  endpointId: string,
  counts: { before: number; wanted: number; placed: number },
  reason: string,
): void {
  logger.log(
    `Endpoint ${endpointId}: placed ${counts.placed} of ${counts.wanted} worker(s), ${counts.before} → ${counts.before + counts.placed}: ${reason}`,
  );
}

/** Logs a queue endpoint's pass decision, if it adds or removes workers. */
export function logQueuePlan(
  endpoint: { id: string } & ScalingSettings,
  pass: {
    view: { scalingQueued: number; queued: number; inProgress: number; oldestScalingQueuedAt: number | null };
    now: number;
    workers: readonly ScalingWorker[];
    plan: { desired: number; add: number; remove: string[] };
  },
): void {
  const { view, workers, plan } = pass;
  const oldest = view.oldestScalingQueuedAt;
  const signals = { ...view, oldestScalingWaitMs: oldest === null ? null : pass.now - oldest };
  const before = workers.length;
  if (plan.add > 0)
    logScaling(endpoint.id, { before, after: before + plan.add, reason: queueAddReason(endpoint, signals, workers) });
  if (plan.remove.length > 0) {
    const reason = `${plan.remove.join(', ')} ${queueRemoveReason(endpoint, workers, plan.desired)}`;
    logScaling(endpoint.id, { before, after: before - plan.remove.length, reason });
  }
}
