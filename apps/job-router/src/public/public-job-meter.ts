import { NotFoundError, type PublicJobUsageEvent } from '@runplane/contracts';
import { type JobEngine, type JobRecord, TERMINAL_STATUSES } from '@runplane/jobs';
import { withinTrace, withSpan } from '@runplane/observability';
import type { PublicJobEntry, PublicJobLedger } from './public-job-ledger';

/** The worker's USD hourly price (its Pod row), or null when the row is gone. */
export interface WorkerPrices {
  workerCostPerHr(endpointId: string, workerId: string): Promise<string | null>;
}

/** Publishes one usage event on the `usage` queue (its id is the BullMQ job id, so a second publish is dropped). */
export type PublicUsagePublisher = (event: PublicJobUsageEvent) => Promise<void>;

/** Jobs looked at per pass. */
const BATCH = 200;
/** How long an unfinished job waits before the meter looks at it again. */
const RECHECK_MS = 2_000;

/**
 * Bills callers' finished public-endpoint jobs: each pass reads the records of the pending jobs that are due (an
 * unfinished one is looked at again {@link RECHECK_MS} later), and for each terminal one
 * publishes one `job.billed` usage event to the caller's account (id `job.<jobId>`: a replica or a pass that
 * publishes it again changes nothing), then settles it. Execution time x the worker's price, or the per-request
 * price. A job no worker took (cancelled or expired in the queue) bills nothing; a job gone before a pass saw it
 * finished (its retention is at least a minute, a pass runs every sweep interval) is not billed either, and a job
 * whose worker's Pod row is already gone (removed between the job and the pass) bills its execution time at 0.
 */
export class PublicJobMeter {
  constructor(
    private readonly engine: Pick<JobEngine, 'get' | 'traceparent'>,
    private readonly ledger: PublicJobLedger,
    private readonly prices: WorkerPrices,
    private readonly publish: PublicUsagePublisher,
  ) {}

  /** One pass over the pending jobs; returns how many it billed. */
  async meter(now: Date = new Date()): Promise<number> {
    let billed = 0;
    for (const entry of await this.ledger.due(now.getTime(), BATCH)) {
      if (await this.meterOne(entry, now)) billed += 1;
    }
    return billed;
  }

  private async meterOne(entry: PublicJobEntry, now: Date): Promise<boolean> {
    const record = await this.engine.get(entry.endpointId, entry.jobId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (record && !TERMINAL_STATUSES.includes(record.status)) {
      await this.ledger.later(entry.endpointId, entry.jobId, now.getTime() + RECHECK_MS);
      return false;
    }
    if (!record?.workerId) {
      await this.ledger.settled(entry.endpointId, entry.jobId);
      return false;
    }
    const costPerHr =
      entry.pricePerRequest === null
        ? ((await this.prices.workerCostPerHr(entry.endpointId, record.workerId)) ?? '0')
        : '0';
    await this.publishUsage(entry, record, costPerHr, now);
    await this.ledger.settled(entry.endpointId, entry.jobId);
    return true;
  }

  /** Publishes the job's usage event in the job's trace, which the usage queue carries to the billing-aggregator. */
  private async publishUsage(entry: PublicJobEntry, record: JobRecord, costPerHr: string, now: Date): Promise<void> {
    const event: PublicJobUsageEvent = {
      eventId: `job.${entry.jobId}`,
      accountId: entry.accountId,
      occurredAt: now.toISOString(),
      type: 'job.billed',
      jobId: entry.jobId,
      model: entry.model,
      executionMs: Math.round(record.executionTime ?? 0),
      costPerHr,
      pricePerRequest: entry.pricePerRequest,
    };
    const traceparent = await this.engine.traceparent(entry.endpointId, entry.jobId);
    const attributes = { 'runplane.endpoint_id': entry.endpointId, 'runplane.job_id': entry.jobId };
    await withinTrace(traceparent, () => withSpan('job.billed', () => this.publish(event), attributes, 'producer'));
  }
}
