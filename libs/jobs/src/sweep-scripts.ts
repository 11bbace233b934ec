import { defineLuaScript } from '@runplane/queue';
import * as lua from './sweep-lua';

/** Flat `[ep, id, ep, id, ...]` lists of re-queued and failed jobs. */
type Settled = [string[], string[]];

/** What every sweep rule is given: the engine's key base and how many due items it handles at most. */
interface Batch {
  base: string;
  limit: number;
}

/** Arguments of {@link SWEEP_SCRIPTS.reconcile}: a live worker's ping and the jobs it reports holding. */
export interface ReconcileArgs {
  base: string;
  endpointId: string;
  workerId: string;
  now: number;
  /** Jobs given to the worker before this and not reported are taken back. */
  takenBefore: number;
  maxRetries: number;
  heldJobIds: string[];
}

/** The sweeper's scripts (sweep-lua.ts), each with its named arguments mapped to ARGV in one place. */
export const SWEEP_SCRIPTS = {
  /** `[ep, id, ...]` of the jobs that timed out. */
  timeouts: defineLuaScript<Batch & { now: number }, string[]>(lua.SWEEP_TIMEOUTS, (a) => ({
    argv: [a.base, a.now, a.limit],
  })),
  /** How many due jobs were deleted. */
  expired: defineLuaScript<Batch & { now: number }, number>(lua.SWEEP_EXPIRED, (a) => ({
    argv: [a.base, a.now, a.limit],
  })),
  /** Jobs of workers not seen since `cutoff`. */
  lostWorkers: defineLuaScript<Batch & { now: number; cutoff: number; maxRetries: number }, Settled>(
    lua.SWEEP_LOST_WORKERS,
    (a) => ({ argv: [a.base, a.now, a.cutoff, a.maxRetries, a.limit] }),
  ),
  /** `[ep, workerId, ...]` of the workers to recycle. */
  unheededStops: defineLuaScript<Batch & { cutoff: number }, string[]>(lua.SWEEP_UNHEEDED_STOPS, (a) => ({
    argv: [a.base, a.cutoff, a.limit],
  })),
  reconcile: defineLuaScript<ReconcileArgs, Settled>(lua.RECONCILE_WORKER, (a) => ({
    argv: [a.base, a.endpointId, a.workerId, a.now, a.takenBefore, a.maxRetries, ...a.heldJobIds],
  })),
};
