import { Queue, type JobsOptions } from 'bullmq';
import { warnOfError } from './warnings';
import { injectTraceContext } from '@runplane/observability';
import {
  JobCatalogError,
  jobNamesIn,
  type JobCatalog,
  type JobNamesIn,
  type JobPayload,
  type QueueNameOf,
} from './catalog';
import { normalizePrefix, type Redis } from './redis';

/** Where queues live: a Redis client WITHOUT keyPrefix (BullMQ rejects one) and the deployment's key prefix. */
export interface QueueConnection {
  redis: Redis;
  prefix: string;
}

/** Options for one enqueue. */
export interface AddJobOptions {
  /** Deterministic id: adding a job whose id exists is a no-op (idempotent producers). */
  jobId?: string;
  delayMs?: number;
  priority?: number;
}

/** What is stored in Redis: the validated payload plus the producer's trace context. */
export interface JobEnvelope {
  payload: unknown;
  trace?: Record<string, string>;
}

// Finished jobs are kept for inspection but bounded so Redis memory stays flat.
const RETENTION = { removeOnComplete: { count: 1000 }, removeOnFail: { count: 5000 } } as const;

/** BullMQ key prefix for a deployment prefix: "runplane" → "runplane:bull". */
export function bullPrefix(prefix: string): string {
  return `${normalizePrefix(prefix)}bull`;
}

/** Fail at startup, not at the first command, when given a client BullMQ cannot use. */
export function assertQueueConnection(connection: QueueConnection): void {
  if (connection.redis.options.keyPrefix) {
    throw new JobCatalogError('Queue connections must not use a Redis keyPrefix; pass the prefix in QueueConnection');
  }
}

/** A producer for one queue of a catalog that only accepts that queue's job names with valid payloads. */
export interface TypedQueue<C extends JobCatalog, Q extends QueueNameOf<C>> {
  readonly name: Q;
  add<N extends JobNamesIn<C, Q>>(name: N, payload: JobPayload<C, N>, opts?: AddJobOptions): Promise<{ id: string }>;
  /**
   * Moves the job of this id back to waiting if it failed (BullMQ keeps failed jobs, so adding one of the same id
   * would be a no-op); false when there is none or it has not failed.
   */
  retryFailed(jobId: string): Promise<boolean>;
  /** Jobs waiting, delayed or running (for autoscaling signals and tests). */
  pendingCount(): Promise<number>;
  close(): Promise<void>;
}

function jobOptions(definition: JobCatalog[string], opts: AddJobOptions): JobsOptions {
  return {
    ...RETENTION,
    attempts: definition.attempts,
    ...(definition.backoff ? { backoff: { type: definition.backoff.type, delay: definition.backoff.delayMs } } : {}),
    ...(opts.jobId !== undefined ? { jobId: opts.jobId } : {}),
    ...(opts.delayMs !== undefined ? { delay: opts.delayMs } : {}),
    ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
  };
}

/** Producer for `queueName`: validates every payload against the catalog before it reaches Redis. */
export function createQueue<C extends JobCatalog, Q extends QueueNameOf<C>>(
  catalog: C,
  queueName: Q,
  connection: QueueConnection,
  /** Connection errors BullMQ re-emits on the queue (Redis down); a process warning when omitted. */
  options: { onError?: (error: Error) => void } = {},
): TypedQueue<C, Q> {
  assertQueueConnection(connection);
  if (jobNamesIn(catalog, queueName).length === 0) {
    throw new JobCatalogError(`Queue "${queueName}" has no jobs in the catalog`);
  }
  const queue = new Queue(queueName, { connection: connection.redis, prefix: bullPrefix(connection.prefix) });
  // Without a listener BullMQ prints every connection error it re-emits on the queue.
  queue.on('error', options.onError ?? warnOfError);
  return {
    name: queueName,
    async add(name, payload, opts = {}) {
      const definition = catalog[name];
      if (!definition || definition.queue !== queueName) {
        throw new JobCatalogError(`Job "${name}" does not run on queue "${queueName}"`);
      }
      // Parse to reject bad payloads at the producer, but store the input: consumers parse it again.
      definition.schema.parse(payload);
      const envelope: JobEnvelope = { payload, trace: injectTraceContext() };
      const job = await queue.add(name, envelope, jobOptions(definition, opts));
      if (job.id === undefined) throw new Error(`BullMQ returned no id for job ${name}`);
      return { id: job.id };
    },
    async retryFailed(jobId) {
      const job = await queue.getJob(jobId);
      if (!job || !(await job.isFailed())) return false;
      try {
        await job.retry('failed');
        return true;
      } catch (error) {
        // Another caller retried it first: no longer failed.
        if (!(await job.isFailed())) return false;
        throw error;
      }
    },
    pendingCount: () => queue.getJobCountByTypes('waiting', 'delayed', 'active', 'prioritized', 'waiting-children'),
    close: () => queue.close(),
  };
}
