/**
 * The job engine's contract: what job-router's client routes and worker routes call. One implementation
 * (Redis + one BullMQ queue per endpoint, through @runplane/queue); every time-based rule reads `Clock`.
 */

import type { Admission } from './admission';

/** Job statuses, as RunPod's clients know them. */
export const JOB_STATUSES = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'] as const;
/** A job status. */
export type JobStatus = (typeof JOB_STATUSES)[number];
/** Statuses after which nothing about a job changes but its removal. */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/** Milliseconds since the epoch; injectable so tests move time instead of sleeping. */
export interface Clock {
  now(): number;
}

/** Per-job policy (RunPod `policy`), resolved with defaults at submission. */
export interface JobPolicy {
  executionTimeoutMs: number;
  ttlMs: number;
  lowPriority: boolean;
}

/** A job as `/status` returns it (RunPod's job record); fields absent until they apply. */
export interface JobRecord {
  id: string;
  status: JobStatus;
  delayTime?: number;
  executionTime?: number;
  output?: unknown;
  error?: string;
  workerId?: string;
  retries: number;
}

/** What a client submits to /run or /runsync (already validated). */
export interface JobSubmission {
  endpointId: string;
  accountId: string;
  input: Record<string, unknown>;
  /** Other top-level keys of the body (s3Config, ...), handed to the worker as they came. */
  extra: Record<string, unknown>;
  webhook?: string;
  policy: JobPolicy;
  /** `sync-` ids and the short result retention of /runsync. */
  sync: boolean;
  idempotencyKey?: string;
  /** How long the finished job stays readable; default 30 min, 1 min when `sync` (see `syncRetentionMs`). */
  retentionMs?: number;
  /**
   * The W3C traceparent of the request that submitted it: kept in the job's hash, so the take, job-done, stream,
   * webhook and usage spans join the submitter's trace.
   */
  traceparent?: string;
  /**
   * Counters the job is counted against in the script that records it (see admission.ts): a refusal rejects with
   * SubmissionRefused, nothing recorded. Counted only when that script runs: a repeated Idempotency-Key answers its
   * first job without running it, slots given back included, so a submission with a key is counted by its caller.
   */
  admission?: Admission;
}

/** The key under which a {@link TakenJob} holds its job's W3C traceparent: a symbol, so JSON never shows it. */
export const JOB_TRACEPARENT: unique symbol = Symbol('runplane.job.traceparent');

/** A job handed to a worker by job-take: RunPod's `{id, input, ...}` shape. */
export interface TakenJob {
  id: string;
  input: Record<string, unknown>;
  [extra: string]: unknown;
  /** The trace context the job was submitted in (see `JobSubmission.traceparent`), for the take's span. */
  [JOB_TRACEPARENT]?: string;
}

/** A worker's job-take: up to `count` jobs, waiting up to `waitMs` (or until `signal` aborts) for one to arrive. */
export interface TakeRequest {
  endpointId: string;
  workerId: string;
  count: number;
  waitMs: number;
  signal?: AbortSignal;
}

/** What a worker reports with job-done (RunPod worker SDK body). */
export interface JobResult {
  output?: unknown;
  error?: unknown;
  /** A progress update (`status: "IN_PROGRESS"`) instead of a final result. */
  status?: string;
  stopPod?: boolean;
}

/** Queue and job counts for `/health` (RunPod's `jobs` object). */
export interface JobCounts {
  completed: number;
  failed: number;
  inProgress: number;
  inQueue: number;
  retried: number;
}

/** The workers of an endpoint with a live heartbeat, by id: idle ones hold no job, running ones at least one. */
export interface LiveWorkers {
  idle: string[];
  running: string[];
}

/** One `/stream` answer: the chunks not handed out before. */
export interface StreamRead {
  status: JobStatus;
  stream: { output: unknown }[];
}

/** The job engine. Unknown endpoint/job ids and expired jobs are `NotFoundError`s; wrong states are `ValidationError`s. */
export interface JobEngine {
  submit(job: JobSubmission): Promise<JobRecord>;
  get(endpointId: string, jobId: string): Promise<JobRecord>;
  /** Resolves when the job is terminal, `waitMs` elapsed or `signal` aborted, with the record as it then is. */
  waitFor(endpointId: string, jobId: string, waitMs: number, signal?: AbortSignal): Promise<JobRecord>;
  setTtl(endpointId: string, jobId: string, ttlMs: number): Promise<JobRecord>;
  cancel(endpointId: string, jobId: string): Promise<JobRecord>;
  retry(endpointId: string, jobId: string): Promise<JobRecord>;
  /** Removes every queued job (running ones go on); returns how many. */
  purgeQueue(endpointId: string): Promise<number>;
  counts(endpointId: string): Promise<JobCounts>;
  recent(endpointId: string, limit: number): Promise<JobRecord[]>;
  /**
   * Long-polls up to `waitMs` (or until `signal` aborts) for chunks not yet handed out (returns at once when some
   * exist or the job ends).
   */
  readStream(endpointId: string, jobId: string, waitMs: number, signal?: AbortSignal): Promise<StreamRead>;

  /** Long-polls up to `waitMs` for at most `count` jobs; woken at once when a job arrives. Empty = 204. */
  take(request: TakeRequest): Promise<TakenJob[]>;
  /** Idempotent; progress updates are accepted until the job is terminal and ignored after. */
  complete(endpointId: string, workerId: string, jobId: string, result: JobResult): Promise<void>;
  appendStream(endpointId: string, workerId: string, jobId: string, output: unknown): Promise<void>;
  /** The W3C traceparent the job was submitted in, for spans of its trace; undefined without one or when it is gone. */
  traceparent(endpointId: string, jobId: string): Promise<string | undefined>;
  /**
   * The worker is alive. With `jobIds` (a ping's `job_id` list; empty when it holds none), jobs it was given a
   * while ago but does not report are taken back and re-queued; without, only presence is recorded.
   */
  heartbeat(endpointId: string, workerId: string, jobIds?: string[]): Promise<void>;
  /**
   * The worker reported itself unhealthy (a failed fitness check, before it exits): it no longer counts among the
   * endpoint's live workers, and a `worker.unhealthy` event carries `reason` to the scheduler. Jobs it holds stay with
   * it until it takes them up again or is found lost.
   */
  unhealthy(endpointId: string, workerId: string, reason: string): Promise<void>;
  /** Long-polls up to `waitMs` for jobs this worker must stop (cancelled, timed out). */
  stopRequests(endpointId: string, workerId: string, waitMs: number, signal?: AbortSignal): Promise<string[]>;

  /** Applies every due time-based rule (ttl, retention, execution timeouts, lost workers) at `clock.now()`. */
  sweep(): Promise<void>;
  close(): Promise<void>;
}
