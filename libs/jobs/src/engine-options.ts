import type { Redis } from '@runplane/queue';
import type { EngineConnections } from './connections';
import { type Clock, type JobRecord, type JobResult, TERMINAL_STATUSES } from './engine';
import type { CompleteArgs } from './engine-scripts';

/** The engine's Redis connections, named for what they guarantee (see {@link EngineConnections}). */
export interface EngineConnectionOptions {
  /** BullMQ's connection, ordered with its scripts; keys go under `prefix`. */
  queueOrdered: Redis;
  /** The connection free of BullMQ's commands. Defaults to `queueOrdered`. */
  queueFree?: Redis;
}

/** The connections of `options`, by their names. */
export function engineConnections(options: EngineConnectionOptions): EngineConnections {
  return { queueOrdered: options.queueOrdered, queueFree: options.queueFree ?? options.queueOrdered };
}

/** Tuning of {@link RedisJobEngine}. */
export interface RedisJobEngineTuning {
  prefix: string;
  /** Suffix of job ids (`<uuid>-<region>`), e.g. "u1". */
  region: string;
  clock?: Clock;
  /** Expected worker ping interval; a worker silent for 3 intervals is lost (default 10000). */
  heartbeatIntervalMs?: number;
  /** Times a job is re-queued after losing its worker before it FAILs (default 3). */
  maxRetries?: number;
  /** Most jobs or workers one sweep rule handles per call (default 1000). */
  sweepBatch?: number;
  /** Webhook outbox entries younger than this are left to the request that made them (default 5000). */
  outboxGraceMs?: number;
  /** Errors of side effects that must not fail the caller (webhook enqueue, queue clean-up). */
  onError?: (error: Error) => void;
}

/** Wiring and tuning of {@link RedisJobEngine}. */
export type RedisJobEngineOptions = EngineConnectionOptions & RedisJobEngineTuning;

/** True for COMPLETED, FAILED, CANCELLED and TIMED_OUT. */
export function isTerminal(status: string): boolean {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

/** A finished job's record, as a job-done on this replica hands it to the callers parked for it. */
export function isFinishedRecord(value: unknown): value is JobRecord {
  return typeof value === 'object' && value !== null && isTerminal(String((value as { status?: unknown }).status));
}

/** A worker's error as the job's error text. */
function errorText(error: unknown): string {
  return typeof error === 'string' ? error : JSON.stringify(error);
}

/** A worker's job-done body as the COMPLETE script's arguments: a progress update, or the final result. */
export function jobDone(result: JobResult): Pick<CompleteArgs, 'kind' | 'status' | 'output' | 'error' | 'stopPod'> {
  const progress = result.status === 'IN_PROGRESS';
  const failed = !progress && result.error !== undefined && result.error !== null;
  return {
    kind: progress ? 'progress' : 'final',
    status: failed ? 'FAILED' : 'COMPLETED',
    output: result.output !== undefined ? JSON.stringify(result.output) : undefined,
    error: failed ? errorText(result.error) : undefined,
    stopPod: result.stopPod === true,
  };
}
