/**
 * Where in the current event-loop turn deferred work runs. Batching per turn and "answer first, then the rest" are
 * correctness rules, not tuning: code that depends on them says which edge it needs here rather than calling
 * `setImmediate` or `process.nextTick` itself.
 *
 * Node runs, in one turn, every I/O callback that is ready (each request read, each Redis reply), then the
 * immediates. `process.nextTick` callbacks run as soon as the current callback (or promise job) returns, before any
 * of those.
 *
 * - `'after-io'` (setImmediate): after every I/O callback of this turn. All the calls that the requests read in the
 *   same turn make join one batch (one Redis round trip, one query, one apiserver write for all of them), and work
 *   deferred this way comes after any answer written in this turn (e.g. a take's answer before its clean-up).
 * - `'before-io'` (process.nextTick): before any further I/O callback or immediate. Commands issued then are on their
 *   connection before anything a later callback sends (the caller's next request, an `'after-io'` batch already
 *   pending), so Redis runs them first.
 */
export type TurnEdge = 'after-io' | 'before-io';

/** Runs `callback` at `edge` of the current event-loop turn (see {@link TurnEdge} for which to pick). */
export function atTurnEnd(edge: TurnEdge, callback: () => void): void {
  if (edge === 'before-io') process.nextTick(callback);
  else setImmediate(callback);
}

/** Resolves at `edge` of the current event-loop turn (see {@link TurnEdge}). */
export function turnEnd(edge: TurnEdge): Promise<void> {
  return new Promise((resolve) => atTurnEnd(edge, resolve));
}
