import type { WorkerStateEntry } from '@runplane/endpoints';
import type { UpstreamWorker } from './endpoint-pool';
import { LbAnswer } from './lb-answers';

/** Why a load-balancing request found no ready worker in time (the 503's `reason`). */
export type UnavailableReason = 'NO_WORKERS' | 'WORKERS_STARTING' | 'WORKERS_UNHEALTHY' | 'NO_CAPACITY' | 'CRASH_LOOP';

/** The scheduler's throttled reason while it waits out the backoff after crashed workers (apps/scheduler autoscaler). */
const CRASH_BACKOFF_PREFIX = 'Waiting to replace a crashed worker';
/** The Pod statusMessage of a workload the cluster cannot schedule. */
const UNSCHEDULABLE_PREFIX = 'Unschedulable: ';

interface Explanation {
  reason: UnavailableReason;
  message: string;
}

function crashOf(workers: readonly UpstreamWorker[], states: readonly WorkerStateEntry[]): string | undefined {
  const backoff = states.find((entry) => entry.state === 'throttled' && entry.reason?.startsWith(CRASH_BACKOFF_PREFIX));
  const unhealthy = states.find((entry) => entry.state === 'unhealthy' && entry.reason);
  const failed = workers.find((worker) => worker.row.observedPhase === 'FAILED' && worker.row.statusMessage);
  return backoff?.reason ?? unhealthy?.reason ?? failed?.row.statusMessage ?? undefined;
}

function noCapacityOf(workers: readonly UpstreamWorker[], states: readonly WorkerStateEntry[]): string | undefined {
  const throttled = states.find((entry) => entry.state === 'throttled' && entry.reason);
  const unschedulable = workers.find((worker) => worker.row.statusMessage?.startsWith(UNSCHEDULABLE_PREFIX));
  return throttled?.reason ?? unschedulable?.row.statusMessage ?? undefined;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/**
 * What the workers (this replica's view) and the scheduler's worker states say about the missing ready worker.
 * Draining workers are on their way out: they do not count.
 */
export function explainUnavailable(
  seen: readonly UpstreamWorker[],
  states: readonly WorkerStateEntry[],
  waitedMs: number,
): Explanation {
  const workers = seen.filter((worker) => !worker.row.draining);
  const crash = crashOf(workers, states);
  if (crash) return { reason: 'CRASH_LOOP', message: `Workers of this endpoint keep crashing: ${crash}` };
  const noCapacity = noCapacityOf(workers, states);
  if (noCapacity) return { reason: 'NO_CAPACITY', message: `No capacity for a worker of this endpoint: ${noCapacity}` };
  const unhealthy = workers.filter((worker) => worker.health === 'unhealthy').length;
  if (unhealthy > 0) {
    const what = `${plural(unhealthy, 'worker')} failed the health check (an answer other than 200 or 204)`;
    return { reason: 'WORKERS_UNHEALTHY', message: `No worker of this endpoint is ready: ${what}` };
  }
  if (workers.length > 0) {
    const initializing = workers.filter((worker) => worker.health === 'initializing').length;
    const detail = `${initializing} initializing (health check answers 204), ${workers.length - initializing} not answering yet`;
    return { reason: 'WORKERS_STARTING', message: `Workers of this endpoint are starting: ${detail}` };
  }
  const seconds = Math.round(waitedMs / 1000);
  return { reason: 'NO_WORKERS', message: `No worker of this endpoint is running yet (waited ${seconds} s for one)` };
}

/** The 503 answer for an explanation. */
export function unavailableAnswer(explanation: Explanation): LbAnswer {
  return new LbAnswer(503, { error: explanation.message, code: 'NO_READY_WORKER', reason: explanation.reason });
}
