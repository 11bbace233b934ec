/** Why the autoscaler adds workers: a bounded set, one label value each. */
export const UP_REASONS = ['workers_min', 'scale_from_zero', 'queue_delay', 'request_count', 'request_load'] as const;
/** Why the autoscaler removes workers. */
export const DOWN_REASONS = ['idle_timeout'] as const;

/** What a pass did to one endpoint's workers (counted once they are added or removed), and its settings. */
export interface DecisionInput {
  /** `queue` (job API) or `load_balancer`. */
  type: 'queue' | 'load_balancer';
  scalerType: 'QUEUE_DELAY' | 'REQUEST_COUNT';
  workersMin: number;
  /** Workers the endpoint had before the decision. */
  before: number;
  add: number;
  remove: number;
}

/**
 * The direction and reason of a decision, or null when it changes nothing. Adding: `workers_min` when the count
 * after it is within workersMin, `scale_from_zero` for the first worker of an endpoint that had none, else the
 * signal the scaler follows (`queue_delay`, `request_count`; `request_load` for load-balancing endpoints). Removing
 * is always of workers idle for idleTimeout (`idle_timeout`).
 */
export function decisionReason(
  input: DecisionInput,
): { direction: 'up'; reason: (typeof UP_REASONS)[number] } | { direction: 'down'; reason: 'idle_timeout' } | null {
  if (input.add > 0) return { direction: 'up', reason: upReason(input) };
  if (input.remove > 0) return { direction: 'down', reason: 'idle_timeout' };
  return null;
}

function upReason(input: DecisionInput): (typeof UP_REASONS)[number] {
  if (input.before + input.add <= input.workersMin) return 'workers_min';
  if (input.before === 0) return 'scale_from_zero';
  if (input.type === 'load_balancer') return 'request_load';
  return input.scalerType === 'QUEUE_DELAY' ? 'queue_delay' : 'request_count';
}

/** What a pass did to an endpoint's workers (`before`: its workers meant to run; only workers really added or removed). */
export function decisionInput(
  endpoint: { type: string; scalerType: DecisionInput['scalerType']; workersMin: number },
  before: number,
  done: { added: number; removed: number },
): DecisionInput {
  return {
    type: endpoint.type === 'LOAD_BALANCER' ? 'load_balancer' : 'queue',
    scalerType: endpoint.scalerType,
    workersMin: endpoint.workersMin,
    before,
    add: done.added,
    remove: done.removed,
  };
}
