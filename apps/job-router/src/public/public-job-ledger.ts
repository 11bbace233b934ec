import { NotFoundError } from '@runplane/contracts';
import type { Redis } from '@runplane/queue';

/** Who submitted a public-endpoint job, and how it is billed. */
export interface PublicJobEntry {
  endpointId: string;
  jobId: string;
  /** The caller's account: the only one that sees the job, and the one billed for it. */
  accountId: string;
  model: string;
  /** USD per job as a decimal string, or null: execution time x the worker's price. */
  pricePerRequest: string | null;
}

/** The job's entry outlives the job's own ttl by this much, so no job is readable while its caller is forgotten. */
const ENTRY_GRACE_MS = 60 * 60 * 1000;

// Keys on a client that prefixes them with REDIS_PREFIX.
const entryKey = (endpointId: string, jobId: string): string => `public-jobs:job:${endpointId}:${jobId}`;
const PENDING = 'public-jobs:pending';
const member = (endpointId: string, jobId: string): string => `${endpointId}/${jobId}`;

/**
 * The jobs callers submitted to public endpoints, in Redis beside the engine: each job's caller (so another account's
 * job id answers 404) and the set of jobs not yet billed, which the meter drains. Job records themselves stay in the
 * engine, unchanged; the engine's record does not say which account a job belongs to.
 */
export class PublicJobLedger {
  constructor(private readonly redis: Redis) {}

  /** Records a submitted job; its entry expires `ttlMs` (the job's ttl) plus an hour from now. */
  async record(entry: PublicJobEntry, ttlMs: number): Promise<void> {
    const fields = { accountId: entry.accountId, model: entry.model, price: entry.pricePerRequest ?? '' };
    await this.redis
      .multi()
      .hset(entryKey(entry.endpointId, entry.jobId), fields)
      .pexpire(entryKey(entry.endpointId, entry.jobId), ttlMs + ENTRY_GRACE_MS)
      .zadd(PENDING, Date.now(), member(entry.endpointId, entry.jobId))
      .exec();
  }

  /** NotFoundError unless `accountId` submitted the job (a job of the owner's own traffic is nobody's here). */
  async requireCaller(endpointId: string, jobId: string, accountId: string): Promise<void> {
    const caller = await this.redis.hget(entryKey(endpointId, jobId), 'accountId');
    if (caller !== accountId) throw new NotFoundError(`Job ${jobId}`);
  }

  /** Keeps the entry as long as the job after its ttl moved (`/status?ttl=`). */
  async extend(endpointId: string, jobId: string, ttlMs: number): Promise<void> {
    await this.redis.pexpire(entryKey(endpointId, jobId), ttlMs + ENTRY_GRACE_MS);
  }

  /**
   * Up to `limit` jobs not billed yet that are due for a look at `now` (ms), longest due first; an entry already
   * expired is dropped and skipped.
   */
  async due(now: number, limit: number): Promise<PublicJobEntry[]> {
    const members = await this.redis.zrangebyscore(PENDING, '-inf', String(now), 'LIMIT', '0', String(limit));
    const entries: PublicJobEntry[] = [];
    for (const item of members) {
      const [endpointId = '', jobId = ''] = item.split('/');
      const hash = await this.redis.hgetall(entryKey(endpointId, jobId));
      if (!hash['accountId']) {
        await this.redis.zrem(PENDING, item);
        continue;
      }
      const price = hash['price'] ?? '';
      entries.push({
        endpointId,
        jobId,
        accountId: hash['accountId'],
        model: hash['model'] ?? '',
        pricePerRequest: price || null,
      });
    }
    return entries;
  }

  /** The job is not finished yet: it is looked at again at `at` (ms), so unfinished jobs never hold up finished ones. */
  async later(endpointId: string, jobId: string, at: number): Promise<void> {
    await this.redis.zadd(PENDING, 'XX', at, member(endpointId, jobId));
  }

  /** The job is billed (or can never be): it leaves the pending set. */
  async settled(endpointId: string, jobId: string): Promise<void> {
    await this.redis.zrem(PENDING, member(endpointId, jobId));
  }
}
