import type { ColdStartPhase, WaitingReasonDto } from '@runplane/contracts';
import type { ScalingWorker } from '@runplane/placement';

/** What a pass knows about why an endpoint's queued jobs may wait. */
export interface WaitingInputs {
  endpoint: { computeType: string; gpuTypeIds: readonly string[]; workersMax: number };
  queued: number;
  /** Queued jobs that are not lowPriority. */
  scalingQueued: number;
  /** The endpoint's workers after the pass's removals. */
  workers: readonly ScalingWorker[];
  /** Workers the pass added (not in `workers` yet). */
  added: number;
  /** The furthest cold-start phase a starting worker reached (null: none reported one). */
  startingPhase: ColdStartPhase | null;
  /** Why placement or the cluster had no room for a worker this pass (null: it had). */
  noCapacity: string | null;
  /** The endpoint's crash loop: workers failed in a row, and the last one's exit reason. */
  crash: { count: number; reason: string } | null;
  at: Date;
}

const PHASE_WORDS: Record<ColdStartPhase, string> = {
  placed: 'placed, waiting for the cluster',
  scheduled: 'pod scheduled, pulling the image',
  imagePulled: 'image pulled, starting the container',
  containerStarted: 'container started, waiting for its first ping',
  firstPing: 'pinging, about to take a job',
  firstJob: 'taking jobs',
};

type Reason = Omit<WaitingReasonDto, 'at'>;

function gpuWords(endpoint: WaitingInputs['endpoint']): string {
  return endpoint.computeType === 'GPU' ? endpoint.gpuTypeIds.join(', ') : 'CPU workers';
}

function withoutStartingWorker(inputs: WaitingInputs): Reason {
  const { endpoint, workers } = inputs;
  if (workers.length === 0 && inputs.scalingQueued === 0)
    return { code: 'LOW_PRIORITY', message: 'Only low-priority jobs are queued: they never start a worker' };
  if (workers.length >= endpoint.workersMax) {
    const message =
      workers.length === 0
        ? 'The endpoint allows no worker (workersMax 0)'
        : `All ${workers.length} worker(s) are busy and workersMax ${endpoint.workersMax} is reached`;
    return { code: 'MAX_WORKERS', message, workersMax: endpoint.workersMax };
  }
  if (workers.length === 0) return { code: 'NO_WORKER', message: 'No worker yet: one is added on the next pass' };
  if (inputs.scalingQueued === 0)
    return { code: 'LOW_PRIORITY', message: 'Low-priority jobs wait for a free worker: they never add one' };
  return { code: 'WORKERS_BUSY', message: `All ${workers.length} worker(s) are busy: the scaler adds more` };
}

function reasonOf(inputs: WaitingInputs): Reason {
  const { crash, endpoint } = inputs;
  if (crash)
    return {
      code: 'CRASH_LOOP',
      message: `Workers are crash-looping (${crash.count} in a row): ${crash.reason}`,
      exitReason: crash.reason,
    };
  if (inputs.noCapacity !== null) {
    const gpuTypeIds = endpoint.computeType === 'GPU' ? { gpuTypeIds: [...endpoint.gpuTypeIds] } : {};
    return {
      code: 'NO_CAPACITY',
      message: `No capacity for ${gpuWords(endpoint)}: ${inputs.noCapacity}`,
      ...gpuTypeIds,
    };
  }
  const starting = inputs.workers.filter((worker) => worker.initializing).length + inputs.added;
  if (starting > 0) {
    const phase = inputs.startingPhase ?? 'placed';
    return { code: 'WORKERS_STARTING', message: `${starting} worker(s) starting: ${PHASE_WORDS[phase]}`, phase };
  }
  return withoutStartingWorker(inputs);
}

/** Why the endpoint's queued jobs wait, in words and as a code; null when no job is queued. Pure. */
export function waitingReason(inputs: WaitingInputs): WaitingReasonDto | null {
  if (inputs.queued === 0) return null;
  return { ...reasonOf(inputs), at: inputs.at.toISOString() };
}

/** A queue endpoint's queued jobs, as a pass read them. */
export interface QueueCounts {
  queued: number;
  scalingQueued: number;
}

/** What adding workers gave: how many, why not all, and whether a crash backoff (not capacity) held them back. */
export interface AddResult {
  added: number;
  refusal: string | null;
  backoff?: boolean;
}

/** One endpoint's pass under way: the endpoint, its queue (null: a load-balancing endpoint), what adding gave. */
export interface EndpointPass {
  endpoint: WaitingInputs['endpoint'];
  queue: QueueCounts | null;
  before: number;
  added?: AddResult;
}

/** What the pass ends with: the workers kept, the throttled ones, the crash loop if any. */
export interface PassEnd {
  workers: readonly ScalingWorker[];
  throttled: readonly { reason?: string }[];
  crash: { count: number; reason: string } | null;
  at: Date;
}

/** The waiting reason a pass publishes for a queue endpoint (null for a load-balancing one, or none queued). */
export function waitingOf(
  pass: EndpointPass,
  end: PassEnd,
  coldStarts: { furthest(ids: readonly string[]): ColdStartPhase | null },
): WaitingReasonDto | null {
  if (!pass.queue) return null;
  const capacity = pass.added?.backoff ? null : (pass.added?.refusal ?? null);
  const unschedulable = end.throttled.find((entry) => entry.reason?.startsWith('Unschedulable: '))?.reason ?? null;
  const starting = end.workers.filter((worker) => worker.initializing).map((worker) => worker.id);
  return waitingReason({
    endpoint: pass.endpoint,
    ...pass.queue,
    workers: end.workers,
    added: pass.added?.added ?? 0,
    startingPhase: coldStarts.furthest(starting),
    noCapacity: capacity ?? unschedulable,
    crash: end.crash && { count: end.crash.count, reason: end.crash.reason },
    at: end.at,
  });
}
