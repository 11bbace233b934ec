import {
  createWorker,
  type QueueConnection,
  type TypedWorker,
  UnrecoverableError,
  USAGE_QUEUE,
  usageCatalog,
} from '@runplane/queue';
import { type UsageRejection, UsageEventRejectedError } from './errors';
import type { RecordOutcome, UsageAggregator } from './usage-aggregator';

/** A usage event that failed for good: refused, or out of retries. Nothing of it was written. */
export interface UsageFailure {
  /** The job id, which producers set to the event id. */
  eventId: string;
  reason: UsageRejection | 'RETRIES_EXHAUSTED';
  message: string;
}

/** How the consumer connects and where it reports failed events. */
export interface UsageConsumerOptions extends QueueConnection {
  concurrency?: number;
  /** Called once per event that will never be applied (the job stays in the queue's failed set). */
  onFailure(failure: UsageFailure): void;
  /** Called once per event the aggregator accepted: recorded, or a duplicate of one recorded before. */
  onRecorded?: (outcome: RecordOutcome) => void;
  onError?: (error: Error) => void;
}

/**
 * Consumes the `usage` queue into the aggregator. A refused event (bad payload, id reused with other content,
 * unknown or foreign account) fails at once without retries; other errors are retried per the catalog.
 */
export function startUsageConsumer(aggregator: UsageAggregator, options: UsageConsumerOptions): TypedWorker {
  const reported = new WeakSet<Error>();
  const consumer = createWorker(
    usageCatalog,
    USAGE_QUEUE,
    {
      'usage.record': async (event) => {
        try {
          const outcome = await aggregator.record(event);
          options.onRecorded?.(outcome);
          return outcome;
        } catch (error) {
          if (!(error instanceof UsageEventRejectedError)) throw error;
          options.onFailure({ eventId: error.eventId, reason: error.reason, message: error.message });
          const permanent = new UnrecoverableError(error.message);
          reported.add(permanent);
          throw permanent;
        }
      },
    },
    options,
  );
  consumer.worker.on('failed', (job, error) => {
    if (job === undefined || reported.has(error)) return;
    // createWorker refuses a payload that fails the schema with an UnrecoverableError before the handler runs.
    const invalid = error.name === 'UnrecoverableError';
    if (!invalid && job.attemptsMade < (job.opts.attempts ?? 1)) return;
    options.onFailure({
      eventId: job.id ?? '',
      reason: invalid ? 'INVALID_PAYLOAD' : 'RETRIES_EXHAUSTED',
      message: error.message,
    });
  });
  return consumer;
}
