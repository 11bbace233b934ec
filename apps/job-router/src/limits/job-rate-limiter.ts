import { DomainError } from '@runplane/contracts';
import type { Redis } from '@runplane/queue';
import { RateLimiterRedis } from 'rate-limiter-flexible';
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
  /** Prefix of the limiter's keys (for a client without keyPrefix); "" when the client prefixes keys itself. */
  keyPrefix?: string;
}

/** Counting is ours (the effective limit changes with the worker count), so the library never rejects. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

const NOTHING_TO_RELEASE = async (): Promise<void> => undefined;

/**
 * Per-endpoint, per-operation limits on Redis through rate-limiter-flexible, shared by every job-router replica:
 * requests per fixed window against max(base, running workers × per-worker value), and concurrent requests (a
 * counter of held slots whose key lapses after `maxHoldMs`, so a crashed replica's slots are forgotten). A taken
 * concurrency slot is given back by the returned release.
 */
export class JobRateLimiter {
  private readonly rate: RateLimiterRedis;
  private readonly concurrency: RateLimiterRedis;

  constructor(
    redis: Redis,
    private readonly options: JobRateLimitOptions,
    private readonly workers: RunningWorkerCount,
  ) {
    const prefix = `${options.keyPrefix ?? ''}limits`;
    const windowSeconds = Math.max(1, Math.ceil(options.windowMs / 1000));
    this.rate = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:rate`, points: UNBOUNDED, duration: windowSeconds });
    const holdSeconds = Math.max(1, Math.ceil(options.maxHoldMs / 1000));
    this.concurrency = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:busy`, points: UNBOUNDED, duration: holdSeconds });
  }

  /** The base limits of an operation after configuration overrides. */
  limitOf(operation: LimitedOperation): OperationLimit {
    return this.options.overrides[operation] ?? DEFAULT_LIMITS[operation];
  }

  /** Counts one request; throws RateLimitedError when over a limit, else returns the release of its slot. */
  async acquire(endpointId: string, operation: LimitedOperation): Promise<() => Promise<void>> {
    const limit = this.limitOf(operation);
    if (limit.requests === 0 && limit.concurrent === 0) return NOTHING_TO_RELEASE;
    const key = `${endpointId}:${operation}`;
    // Both counters at once (one pipelined round trip): a request refused by one gives back its slot of the other.
    const [counting, holding] = await Promise.allSettled([
      limit.requests > 0 ? this.rate.consume(key, 1) : undefined,
      limit.concurrent > 0 ? this.concurrency.consume(key, 1) : undefined,
    ]);
    const held = holding.status === 'fulfilled' ? holding.value : undefined;
    const release = held ? this.releaseOf(key) : NOTHING_TO_RELEASE;
    try {
      if (holding.status === 'rejected') throw holding.reason;
      if (counting.status === 'rejected') throw counting.reason;
      const counted = counting.value;
      if (counted) await this.checkRate(endpointId, operation, limit.requests, counted.consumedPoints, counted.msBeforeNext);
      if (held && held.consumedPoints > limit.concurrent) {
        throw new RateLimitedError(`Too many concurrent ${operation} requests for this endpoint (limit ${limit.concurrent})`, 1);
      }
    } catch (error) {
      await release();
      throw error;
    }
    return release;
  }

  private releaseOf(key: string): () => Promise<void> {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.concurrency.reward(key, 1);
    };
  }

  private async checkRate(endpointId: string, operation: LimitedOperation, base: number, counted: number, resetMs: number): Promise<void> {
    if (counted <= base) return;
    // Only a request over the base limit pays for the worker count.
    const perWorker = this.options.perWorker;
    const effective = perWorker > 0 ? Math.max(base, (await this.workers.runningWorkers(endpointId)) * perWorker) : base;
    if (counted <= effective) return;
    const retryAfterSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    throw new RateLimitedError(
      `Rate limit exceeded for ${operation} on this endpoint (${effective} requests per ${this.options.windowMs / 1000} s)`,
      retryAfterSeconds,
    );
  }
}
