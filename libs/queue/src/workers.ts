import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { warnOfError } from './warnings';
import { withSpan, withTraceContext } from '@runplane/observability';
import {
  JobCatalogError,
  jobNamesIn,
  type JobCatalog,
  type JobData,
  type JobDefinition,
  type JobNamesIn,
  type QueueNameOf,
} from './catalog';
import { assertQueueConnection, bullPrefix, type JobEnvelope, type QueueConnection } from './queues';

export { UnrecoverableError } from 'bullmq';

/** What a handler knows about the try it runs in. */
export interface JobContext {
  id: string;
  name: string;
  /** 1 for the first try. */
  attempt: number;
  maxAttempts: number;
  /** True on the last try: record a terminal state before throwing. */
  isLastAttempt: boolean;
  /** Aborted when the job's timeoutMs elapses. */
  signal: AbortSignal;
}

/** Exactly one handler per job name of the queue. Throw to retry; throw UnrecoverableError to fail for good. */
export type JobHandlers<C extends JobCatalog, Q extends string> = {
  [N in JobNamesIn<C, Q>]: (data: JobData<C, N>, context: JobContext) => Promise<unknown>;
};

/** Options for createWorker. */
export interface WorkerOptions extends QueueConnection {
  concurrency?: number;
  /** Worker-level errors (lost connection, stalled-job checks); a process warning when omitted. */
  onError?: (error: Error) => void;
}

/** A running consumer of one queue. */
export interface TypedWorker {
  /** The underlying BullMQ worker, for events ('completed', 'failed') in tests and metrics. */
  readonly worker: Worker;
  close(): Promise<void>;
}

type AnyHandler = (data: unknown, context: JobContext) => Promise<unknown>;

function checkHandlers(catalog: JobCatalog, queueName: string, handlers: Record<string, unknown>): void {
  const expected = jobNamesIn(catalog, queueName);
  if (expected.length === 0) throw new JobCatalogError(`Queue "${queueName}" has no jobs in the catalog`);
  const missing = expected.filter((name) => typeof handlers[name] !== 'function');
  const unknown = Object.keys(handlers).filter((name) => !expected.includes(name));
  if (missing.length > 0 || unknown.length > 0) {
    throw new JobCatalogError(
      `Worker for queue "${queueName}" is miswired:` +
        (missing.length > 0 ? ` no handler for ${missing.join(', ')};` : '') +
        (unknown.length > 0 ? ` handlers for jobs not on this queue: ${unknown.join(', ')};` : ''),
    );
  }
}

async function runWithTimeout(
  handler: AnyHandler,
  data: unknown,
  context: Omit<JobContext, 'signal'>,
  timeoutMs: number | undefined,
): Promise<unknown> {
  const controller = new AbortController();
  if (timeoutMs === undefined) return handler(data, { ...context, signal: controller.signal });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`Job ${context.name} timed out after ${timeoutMs} ms`);
      // Reject before aborting: abort listeners run synchronously and the handler's own rejection must lose the race.
      reject(error);
      controller.abort(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([handler(data, { ...context, signal: controller.signal }), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function processJob(catalog: JobCatalog, handlers: Record<string, AnyHandler>) {
  return async (job: Job<JobEnvelope>): Promise<unknown> => {
    const definition: JobDefinition | undefined = catalog[job.name];
    const handler = handlers[job.name];
    if (!definition || !handler) throw new UnrecoverableError(`No handler for job "${job.name}"`);
    // A payload that does not match its schema will never succeed: fail without retrying.
    const parsed = definition.schema.safeParse(job.data?.payload);
    if (!parsed.success) throw new UnrecoverableError(`Invalid payload for ${job.name}: ${parsed.error.message}`);
    const maxAttempts = job.opts.attempts ?? 1;
    const attempt = job.attemptsMade + 1;
    const context = { id: job.id ?? '', name: job.name, attempt, maxAttempts, isLastAttempt: attempt >= maxAttempts };
    return withTraceContext(job.data.trace, () =>
      withSpan(`job ${job.name}`, () => runWithTimeout(handler, parsed.data, context, definition.timeoutMs), {
        'runplane.job.id': context.id,
        'runplane.job.attempt': attempt,
      }),
    );
  };
}

/** Consumer for `queueName`; throws JobCatalogError at startup unless every job of the queue has exactly one handler. */
export function createWorker<C extends JobCatalog, Q extends QueueNameOf<C>>(
  catalog: C,
  queueName: Q,
  handlers: JobHandlers<C, Q>,
  options: WorkerOptions,
): TypedWorker {
  assertQueueConnection(options);
  const table = handlers as unknown as Record<string, AnyHandler>;
  checkHandlers(catalog, queueName, table);
  const worker = new Worker<JobEnvelope>(queueName, processJob(catalog, table), {
    connection: options.redis,
    prefix: bullPrefix(options.prefix),
    concurrency: options.concurrency ?? 1,
  });
  // BullMQ emits 'error' for connection trouble; without a listener Node would crash the process.
  worker.on('error', options.onError ?? warnOfError);
  return { worker, close: () => worker.close() };
}
