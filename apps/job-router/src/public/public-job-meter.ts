import { NotFoundError, type PublicJobUsageEvent } from '@runplane/contracts';
import { type JobEngine, TERMINAL_STATUSES } from '@runplane/jobs';
import type { PublicJobEntry, PublicJobLedger } from './public-job-ledger';

/** The worker's USD hourly price (its Pod row), or null when the row is gone. */
export interface WorkerPrices {
  workerCostPerHr(endpointId: string, workerId: string): Promise<string | null>;
}

/** Publishes one usage event on the `usage` queue (its id is the BullMQ job id, so a second publish is dropped). */
export type PublicUsagePublisher = (event: PublicJobUsageEvent) => Promise<void>;

/** Jobs looked at per pass. */
const BATCH = 200;

/**
 * Bills callers' finished public-endpoint jobs: each pass reads the pending jobs' records, and for each terminal one
 * publishes one `job.billed` usage event to the caller's account (id `job.<jobId>`: a replica or a pass that
 * publishes it again changes nothing), then settles it. Execution time x the worker's price, or the per-request
 * price. A job no worker took (cancelled or expired in the queue) bills nothing; a job gone before a pass saw it
 * finished (its retention is at least a minute, a pass runs every sweep interval) is not billed either, and a job
 * whose worker's Pod row is already gone (removed between the job and the pass) bills its execution time at 0.
 */
export class PublicJobMeter {
  constructor(
    private readonly engine: Pick<JobEngine, 'get'>,
    private readonly ledger: PublicJobLedger,
    private readonly prices: WorkerPrices,
    private readonly publish: PublicUsagePublisher,
  ) {}

  /** One pass over the pending jobs; returns how many it billed. */
  async meter(now: Date = new Date()): Promise<number> {
    let billed = 0;
    for (const entry of await this.ledger.pending(BATCH)) {
      if (await this.meterOne(entry, now)) billed += 1;
    }
    return billed;
  }

  private async meterOne(entry: PublicJobEntry, now: Date): Promise<boolean> {
    const record = await this.engine.get(entry.endpointId, entry.jobId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (record && !TERMINAL_STATUSES.includes(record.status)) return false;
    if (!record?.workerId) {
      await this.ledger.settled(entry.endpointId, entry.jobId);
      return false;
    }
    const costPerHr =
      entry.pricePerRequest === null
        ? ((await this.prices.workerCostPerHr(entry.endpointId, record.workerId)) ?? '0')
        : '0';
    await this.publish({
      eventId: `job.${entry.jobId}`,
      accountId: entry.accountId,
      occurredAt: now.toISOString(),
      type: 'job.billed',
      jobId: entry.jobId,
      model: entry.model,
      executionMs: Math.round(record.executionTime ?? 0),
      costPerHr,
      pricePerRequest: entry.pricePerRequest,
    });
    await this.ledger.settled(entry.endpointId, entry.jobId);
    return true;
  }
}
