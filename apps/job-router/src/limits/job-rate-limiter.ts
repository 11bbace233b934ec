import { randomBytes } from 'node:crypto';
import { DomainError } from '@runplane/contracts';
import { LuaScript, type Redis } from '@runplane/queue';
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

/**
 * One step for both counters of a request. KEYS: the window's request counter, the endpoint's held slots (a sorted
 * set of slot tokens by acquire time, so each slot of a crashed replica expires on its own after `holdMs`).
 * ARGV: windowMs, holdMs, token, count requests (0|1), concurrent limit (0 = none).
 * Returns {requests in this window, ms until the window ends, 1 when a slot was taken | 0 none needed | -1 all busy}.
 */
const ACQUIRE = new LuaScript(`
local counted, resetMs = 0, 0
if ARGV[4] == '1' then
  counted = redis.call('INCR', KEYS[1])
  if counted == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
  resetMs = redis.call('PTTL', KEYS[1])
end
local limit = tonumber(ARGV[5])
if limit == 0 then return { counted, resetMs, 0 } end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[2]) >= limit then return { counted, resetMs, -1 } end
redis.call('ZADD', KEYS[2], now, ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return { counted, resetMs, 1 }
`);

const NOTHING_TO_RELEASE = async (): Promise<void> => undefined;

/**
 * Per-endpoint, per-operation limits on Redis, shared by every job-router replica: requests per fixed window against
 * max(base, running workers × per-worker value), and concurrent requests. One script call per request; a taken
 * concurrency slot is given back by the returned release.
 */
export class JobRateLimiter {
  private readonly keyPrefix: string;
  // Slot tokens: unique per replica (random) and per request (counter).
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(
    private readonly redis: Redis,
    private readonly options: JobRateLimitOptions,
    private readonly workers: RunningWorkerCount,
  ) {
    this.keyPrefix = `${options.keyPrefix ?? ''}limits:`;
  }

  /** The base limits of an operation after configuration overrides. */
  limitOf(operation: LimitedOperation): OperationLimit {
    return this.options.overrides[operation] ?? DEFAULT_LIMITS[operation];
  }

  /** Counts one request; throws RateLimitedError when over a limit, else returns the release of its slot. */
  async acquire(endpointId: string, operation: LimitedOperation): Promise<() => Promise<void>> {
    const limit = this.limitOf(operation);
    if (limit.requests === 0 && limit.concurrent === 0) return NOTHING_TO_RELEASE;
    const key = `${this.keyPrefix}${endpointId}:${operation}`;
    const busyKey = `${key}:busy`;
    const token = `${this.instance}:${(this.sequence += 1)}`;
    const [counted, resetMs, slot] = await ACQUIRE.runWithKeys<[number, number, number]>(
      this.redis,
      [`${key}:rate`, busyKey],
      [this.options.windowMs, this.options.maxHoldMs, token, limit.requests > 0 ? 1 : 0, limit.concurrent],
    );
    const release = slot === 1 ? this.releaseOf(busyKey, token) : NOTHING_TO_RELEASE;
    try {
      if (limit.requests > 0) await this.checkRate(endpointId, operation, limit.requests, counted, resetMs);
    } catch (error) {
      await release();
      throw error;
    }
    if (slot === -1) {
      throw new RateLimitedError(`Too many concurrent ${operation} requests for this endpoint (limit ${limit.concurrent})`, 1);
    }
    return release;
  }

  private releaseOf(busyKey: string, token: string): () => Promise<void> {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.redis.zrem(busyKey, token);
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
