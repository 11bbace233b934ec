/**
 * Autoscaler policy: how many workers an endpoint should have and which ones may go. Pure: the scheduler reads the
 * queue signals and the worker list, calls these functions, and creates or removes worker Pods.
 */

/** RunPod's scaler types. */
export type ScalerType = 'QUEUE_DELAY' | 'REQUEST_COUNT';

/** An endpoint's scaling settings (seconds as on the wire). */
export interface ScalingSettings {
  scalerType: ScalerType;
  /** QUEUE_DELAY: seconds the oldest job may wait; REQUEST_COUNT: jobs per worker. */
  scalerValue: number;
  workersMin: number;
  workersMax: number;
  /** Seconds a worker without work stays up. */
  idleTimeout: number;
}

/** What the job engine reports for an endpoint. */
export interface QueueSignals {
  /** Queued jobs that are not lowPriority (only these may scale up). */
  scalingQueued: number;
  /** Every queued job, lowPriority ones included. */
  queued: number;
  inProgress: number;
  /** Milliseconds the oldest non-lowPriority queued job has waited; null when there is none. */
  oldestScalingWaitMs: number | null;
}

/** A worker as the autoscaler sees it. */
export interface ScalingWorker {
  id: string;
  /** Started but not yet heard from (cold start). */
  initializing: boolean;
  /** Holds at least one job right now. */
  busy: boolean;
  /** Milliseconds since it last held a job (or since it started, if it never did). */
  idleForMs: number;
}

const clamp = (value: number, min: number, max: number): number => Math.max(min, Math.min(max, value));

function scaleUpTarget(settings: ScalingSettings, signals: QueueSignals, workers: readonly ScalingWorker[]): number {
  const current = workers.length;
  if (signals.scalingQueued === 0) return 0;
  if (settings.scalerType === 'REQUEST_COUNT') {
    return Math.ceil((signals.scalingQueued + signals.inProgress) / Math.max(1, settings.scalerValue));
  }
  // QUEUE_DELAY: a queue with no worker can never drain, so the first worker comes at once; more come one at a
  // time while the oldest job has waited longer than scalerValue and no worker is still starting.
  if (current === 0) return 1;
  const delayed = signals.oldestScalingWaitMs !== null && signals.oldestScalingWaitMs > settings.scalerValue * 1000;
  const starting = workers.some((w) => w.initializing);
  return delayed && !starting ? current + 1 : current;
}

/**
 * Desired worker count: between workersMin and workersMax; at least what the scaler asks for. LowPriority jobs never
 * raise it, but workers already up keep serving them (they are busy, so never idle).
 */
export function desiredWorkerCount(
  settings: ScalingSettings,
  signals: QueueSignals,
  workers: readonly ScalingWorker[],
): number {
  const target = scaleUpTarget(settings, signals, workers);
  return clamp(Math.max(target, settings.workersMin), settings.workersMin, settings.workersMax);
}

/** Workers to remove: only idle ones (no job held) idle for at least idleTimeout, never below `keep` workers. */
export function workersToRemove(settings: ScalingSettings, workers: readonly ScalingWorker[], keep: number): string[] {
  const removable = workers
    .filter((w) => !w.busy && !w.initializing && w.idleForMs >= settings.idleTimeout * 1000)
    .sort((a, b) => b.idleForMs - a.idleForMs || a.id.localeCompare(b.id));
  const excess = Math.max(0, workers.length - keep);
  return removable.slice(0, excess).map((w) => w.id);
}

/** Workers above workersMax go first (busy ones are still kept until they finish). */
export function scalingPlan(
  settings: ScalingSettings,
  signals: QueueSignals,
  workers: readonly ScalingWorker[],
): { desired: number; add: number; remove: string[] } {
  const desired = desiredWorkerCount(settings, signals, workers);
  const add = Math.max(0, desired - workers.length);
  const remove = add > 0 ? [] : workersToRemove(settings, workers, desired);
  return { desired, add, remove };
}

/** Crash-loop backoff: 1 s, 2 s, 4 s ... capped at 60 s after `failures` consecutive worker failures. */
export function replacementBackoffMs(failures: number): number {
  if (failures <= 0) return 0;
  return Math.min(60_000, 1000 * 2 ** (failures - 1));
}

/** The live requests of a load-balancing endpoint, summed over the job-router replicas. */
export interface RequestSignals {
  /** Requests waiting for a ready worker. */
  waiting: number;
  /** Requests a worker is serving. */
  inFlight: number;
  /** Requests received per second, recently. */
  requestsPerSecond: number;
}

/** What a scaling pass decides, and why (the scheduler logs it). */
export interface ScalingDecision {
  desired: number;
  add: number;
  remove: string[];
  reason: string;
}

/**
 * Load-balancing endpoints scale on their requests (RunPod's REQUEST_COUNT; QUEUE_DELAY is for queue endpoints only,
 * so a load-balancing endpoint's scalerValue is read as requests per worker whatever its scalerType): enough workers
 * for the requests waiting and in flight, or for the request rate (a request a second counts as one at a time, so a
 * stream of short requests keeps its workers), `scalerValue` each, between workersMin and workersMax. A request
 * waiting with no worker asks for one at once (scale from zero). Workers go only without a request in flight, once
 * idle for idleTimeout since their last one (see {@link workersToRemove}).
 */
export function requestScalingPlan(
  settings: ScalingSettings,
  signals: RequestSignals,
  workers: readonly ScalingWorker[],
): ScalingDecision {
  const perWorker = Math.max(1, settings.scalerValue);
  const load = Math.max(signals.waiting + signals.inFlight, signals.requestsPerSecond);
  const wanted = Math.ceil(load / perWorker);
  const desired = clamp(wanted, settings.workersMin, settings.workersMax);
  const add = Math.max(0, desired - workers.length);
  const remove = add > 0 ? [] : workersToRemove(settings, workers, desired);
  const rate = Math.round(signals.requestsPerSecond * 10) / 10;
  const reason =
    `${signals.waiting} waiting + ${signals.inFlight} in flight, ${rate} req/s at ${perWorker} per worker: ` +
    `${wanted} wanted, ${desired} within ${settings.workersMin}..${settings.workersMax}, ${workers.length} running`;
  return { desired, add, remove, reason };
}
