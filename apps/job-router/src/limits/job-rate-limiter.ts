import { DomainError } from '@runplane/contracts';
import { atTurnEnd } from '@runplane/event-loop';
import type { Redis } from '@runplane/queue';
import { RateLimiterRedis, type RateLimiterRes } from '@runplane/http';
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

/** Gives back the concurrency slot a request held. */
export type Release = () => Promise<void>;

const NOTHING_TO_RELEASE: Release = async () => undefined;

const ADMITTED = Symbol('admitted');

/** What one request of a batch gets: admitted, or refused with the reason its acquire rejects with. */
type Verdict = typeof ADMITTED | { readonly reason: unknown };

/** The acquires of one key in one event-loop turn, in arrival order, counted together when the turn ends. */
interface PendingAcquire {
  readonly key: string;
  readonly endpointId: string;
  /** A public model's caller: its own counters, at the base limits (no per-worker raise). */
  readonly caller: string | undefined;
  readonly operation: LimitedOperation;
  readonly limit: OperationLimit;
  readonly waiters: Array<{ resolve: (release: Release) => void; reject: (reason: unknown) => void }>;
}

/** Slots of one key given back together: one reward, whose outcome every giver shares. */
interface PendingReturn {
  points: number;
  readonly sent: Promise<void>;
}

/**
 * Per-endpoint, per-operation limits on Redis through rate-limiter-flexible, shared by every job-router replica:
 * requests per fixed window against max(base, running workers × per-worker value), and concurrent requests (a
 * counter of held slots whose key lapses after `maxHoldMs`, so a crashed replica's slots are forgotten). A taken
 * concurrency slot is given back by the returned release.
 *
 * Group commit: the acquires of one key in one event-loop turn cost one consume of n points per counter, and its
 * releases in one turn one reward; each request still gets exactly what n sequential acquires would give it.
 */
export class JobRateLimiter {
  private readonly rate: RateLimiterRedis;
  private readonly concurrency: RateLimiterRedis;
  private readonly acquiring = new Map<string, PendingAcquire>();
  private readonly returning = new Map<string, PendingReturn>();

  constructor(
    redis: Redis,
    private readonly options: JobRateLimitOptions,
    private readonly workers: RunningWorkerCount,
  ) {
    const prefix = `${options.keyPrefix ?? ''}limits`;
    const windowSeconds = Math.max(1, Math.ceil(options.windowMs / 1000));
    this.rate = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:rate`,
      points: UNBOUNDED,
      duration: windowSeconds,
    });
    const holdSeconds = Math.max(1, Math.ceil(options.maxHoldMs / 1000));
    this.concurrency = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}:busy`,
      points: UNBOUNDED,
      duration: holdSeconds,
    });
  }

  /** The base limits of an operation after configuration overrides. */
  limitOf(operation: LimitedOperation): OperationLimit {
    return this.options.overrides[operation] ?? DEFAULT_LIMITS[operation];
  }

  /**
   * Counts one request; throws RateLimitedError when over a limit, else returns the release of its slot. With
   * `caller` (a public model's caller account) the request counts against that caller's own counters on the endpoint.
   */
  async acquire(endpointId: string, operation: LimitedOperation, caller?: string): Promise<Release> {
    const limit = this.limitOf(operation);
    if (limit.requests === 0 && limit.concurrent === 0) return NOTHING_TO_RELEASE;
    const key = caller === undefined ? `${endpointId}:${operation}` : `${endpointId}:${operation}:caller:${caller}`;
    let batch = this.acquiring.get(key);
    if (!batch) {
      const created: PendingAcquire = { key, endpointId, caller, operation, limit, waiters: [] };
      this.acquiring.set(key, created);
      // After the turn's I/O callbacks, so every request of the same key read in this turn joins the batch.
      atTurnEnd('after-io', () => {
        this.flush(created).catch((error: unknown) => created.waiters.forEach((waiter) => waiter.reject(error)));
      });
      batch = created;
    }
    const { waiters } = batch;
    return new Promise<Release>((resolve, reject) => waiters.push({ resolve, reject }));
  }

  private async flush(batch: PendingAcquire): Promise<void> {
    this.acquiring.delete(batch.key);
    const { key, limit, waiters } = batch;
    const n = waiters.length;
    // Both counters at once (one pipelined round trip), n points each; request i is the (consumed - n + 1 + i)-th.
    const [counting, holding] = await Promise.allSettled([
      limit.requests > 0 ? this.rate.consume(key, n) : undefined,
      limit.concurrent > 0 ? this.concurrency.consume(key, n) : undefined,
    ]);
    const held = holding.status === 'fulfilled' && holding.value !== undefined;
    let verdicts: Verdict[];
    if (holding.status === 'rejected') verdicts = waiters.map(() => ({ reason: holding.reason }));
    else if (counting.status === 'rejected') verdicts = waiters.map(() => ({ reason: counting.reason }));
    else verdicts = await this.verdicts(batch, counting.value, holding.value);
    await this.settle(batch, verdicts, held);
  }

  /** Each request's outcome, in the order n sequential acquires would check it: the rate first, then concurrency. */
  private async verdicts(
    batch: PendingAcquire,
    counted: RateLimiterRes | undefined,
    held: RateLimiterRes | undefined,
  ): Promise<Verdict[]> {
    const { endpointId, caller, operation, limit, waiters } = batch;
    const offset = 1 - waiters.length;
    // Only a batch with a request over the base limit pays for the worker count, once; a caller has the base only.
    const overBase =
      counted && counted.consumedPoints > limit.requests
        ? caller === undefined
          ? await this.overBaseLimit(endpointId, limit.requests)
          : { effective: limit.requests }
        : undefined;
    return waiters.map((_, i): Verdict => {
      const rateCount = counted ? counted.consumedPoints + offset + i : 0;
      if (overBase && rateCount > limit.requests) {
        if ('reason' in overBase) return overBase;
        if (rateCount > overBase.effective)
          return { reason: this.overRate(operation, overBase.effective, counted?.msBeforeNext ?? 0) };
      }
      if (held && held.consumedPoints + offset + i > limit.concurrent) {
        return {
          reason: new RateLimitedError(
            `Too many concurrent ${operation} requests for this endpoint (limit ${limit.concurrent})`,
            1,
          ),
        };
      }
      return ADMITTED;
    });
  }

  /** The rate limit of requests over the base: max(base, running workers × per-worker value), or why it is unknown. */
  private async overBaseLimit(endpointId: string, base: number): Promise<{ effective: number } | { reason: unknown }> {
    const perWorker = this.options.perWorker;
    if (perWorker <= 0) return { effective: base };
    try {
      return { effective: Math.max(base, (await this.workers.runningWorkers(endpointId)) * perWorker) };
    } catch (reason) {
      return { reason };
    }
  }

  private overRate(operation: LimitedOperation, effective: number, resetMs: number): RateLimitedError {
    const retryAfterSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    return new RateLimitedError(
      `Rate limit exceeded for ${operation} on this endpoint (${effective} requests per ${this.options.windowMs / 1000} s)`,
      retryAfterSeconds,
    );
  }

  /**
   * Answers the batch. Refused requests that took a slot give it back (one reward for all) before they are answered,
   * so a caller retrying after the 429 finds it free; a failed give-back is their error, as it was unbatched.
   */
  private async settle(batch: PendingAcquire, verdicts: Verdict[], held: boolean): Promise<void> {
    const { key, waiters } = batch;
    const refused: Array<{ reject: (reason: unknown) => void; reason: unknown }> = [];
    verdicts.forEach((verdict, i) => {
      const waiter = waiters[i];
      if (!waiter) return;
      if (verdict === ADMITTED) waiter.resolve(held ? this.releaseOf(key) : NOTHING_TO_RELEASE);
      else refused.push({ reject: waiter.reject, reason: verdict.reason });
    });
    if (refused.length === 0) return;
    const givenBack = held
      ? await this.giveBack(key, refused.length).then(
          () => undefined,
          (reason: unknown) => ({ reason }),
        )
      : undefined;
    for (const { reject, reason } of refused) reject(givenBack ? givenBack.reason : reason);
  }

  private releaseOf(key: string): Release {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.giveBack(key, 1);
    };
  }

  /**
   * Gives back slots of a key; the slots given back until the current callback and its microtasks end go out as one
   * reward. Flushed at the turn's 'before-io' edge, not the acquires' 'after-io' one: the reward is issued on the Redis
   * client before the caller can have read the answer and sent its next request, and before any acquire batch (even
   * one already pending) is flushed. ioredis keeps the order of commands, auto-pipelined or not, and Redis runs them in
   * order, so that next acquire finds the slot free (the route pipeline gives the slot back before it answers). An
   * 'after-io' flush would not do: an acquire batch scheduled earlier in the same turn could take the caller's next
   * request and flush before the reward.
   */
  private giveBack(key: string, points: number): Promise<void> {
    const pending = this.returning.get(key);
    if (pending) {
      pending.points += points;
      return pending.sent;
    }
    const batch: PendingReturn = {
      points,
      sent: new Promise<void>((resolve, reject) => {
        atTurnEnd('before-io', () => {
          this.returning.delete(key);
          this.concurrency.reward(key, batch.points).then(() => resolve(), reject);
        });
      }),
    };
    this.returning.set(key, batch);
    return batch.sent;
  }
}
