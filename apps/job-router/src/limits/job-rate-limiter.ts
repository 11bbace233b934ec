import { DomainError } from '@runplane/contracts';
import type { Redis } from '@runplane/queue';
import { RateLimiterRedis, type RateLimiterRes } from 'rate-limiter-flexible';
import { DEFAULT_LIMITS, type LimitedOperation, type OperationLimit } from './limit-table';

/** A request over an endpoint's rate or concurrency limit (429); `retryAfterSeconds` goes into `Retry-After`. */
export class RateLimitedError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message);
  }
}

/** How many workers of an endpoint are running, which raises its rate limit. */
export interface RunningWorkerCount {
  runningWorkers(endpointId: string): Promise<number>;
}

/** Settings of the job-API limits. */
export interface JobRateLimitOptions {
  windowMs: number;
  perWorker: number;
  overrides: Partial<Record<LimitedOperation, OperationLimit>>;
  /** Longest a request may hold a concurrency slot; a crashed replica's slots are forgotten after it. */
  maxHoldMs: number;
}

/** Counting is ours (the effective limit changes with the worker count), so the library never rejects. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * Per-endpoint, per-operation limits on Redis (rate-limiter-flexible), shared by every job-router replica:
 * requests per window against max(base, running workers × per-worker value), and concurrent requests.
 */
export class JobRateLimiter {
  private readonly rate: RateLimiterRedis;
  private readonly concurrency: RateLimiterRedis;

  constructor(
    redis: Redis,
    private readonly options: JobRateLimitOptions,
    private readonly workers: RunningWorkerCount,
  ) {
    const windowSeconds = Math.max(1, Math.ceil(options.windowMs / 1000));
    this.rate = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'jobs:rate', points: UNBOUNDED, duration: windowSeconds });
    const holdSeconds = Math.max(1, Math.ceil(options.maxHoldMs / 1000));
    this.concurrency = new RateLimiterRedis({ storeClient: redis, keyPrefix: 'jobs:busy', points: UNBOUNDED, duration: holdSeconds });
  }

  /** The base limits of an operation after configuration overrides. */
  limitOf(operation: LimitedOperation): OperationLimit {
    return this.options.overrides[operation] ?? DEFAULT_LIMITS[operation];
  }

  /** Counts one request; throws RateLimitedError when over a limit, else returns the release of its slot. */
  async acquire(endpointId: string, operation: LimitedOperation): Promise<() => Promise<void>> {
    const limit = this.limitOf(operation);
    const key = `${endpointId}:${operation}`;
    // Both counters in one round trip: a request refused by one gives back its slot of the other.
    const [counting, holding] = await Promise.allSettled([
      limit.requests > 0 ? this.rate.consume(key, 1) : undefined,
      limit.concurrent > 0 ? this.concurrency.consume(key, 1) : undefined,
    ]);
    const held = holding.status === 'fulfilled' ? holding.value : undefined;
    try {
      if (holding.status === 'rejected') throw holding.reason;
      if (counting.status === 'rejected') throw counting.reason;
      const counted = counting.value;
      if (counted) await this.checkRate(endpointId, operation, limit.requests, counted);
      if (held && held.consumedPoints > limit.concurrent) {
        throw new RateLimitedError(`Too many concurrent ${operation} requests for this endpoint (limit ${limit.concurrent})`, 1);
      }
    } catch (error) {
      if (held) await this.concurrency.reward(key, 1);
      throw error;
    }
    if (!held) return async () => undefined;
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.concurrency.reward(key, 1);
    };
  }

  private async checkRate(endpointId: string, operation: LimitedOperation, base: number, counted: RateLimiterRes): Promise<void> {
    if (counted.consumedPoints <= base) return;
    // Only a request over the base limit pays for the worker count.
    const perWorker = this.options.perWorker;
    const effective = perWorker > 0 ? Math.max(base, (await this.workers.runningWorkers(endpointId)) * perWorker) : base;
    if (counted.consumedPoints <= effective) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
    throw new RateLimitedError(
      `Rate limit exceeded for ${operation} on this endpoint (${effective} requests per ${this.options.windowMs / 1000} s)`,
      retryAfterSeconds,
    );
  }
}
