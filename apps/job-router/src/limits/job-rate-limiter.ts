import { DomainError } from '@runplane/contracts';
import { atTurnEnd } from '@runplane/event-loop';
import { defineLuaScript, type Redis } from '@runplane/queue';
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
 * One counter: created at 0 with its window's expiry unless it exists, raised by the points (lowered when they are
 * negative), and read with the milliseconds left in its window (a counter found without an expiry gets one). Errors
 * (a key of another type) are returned, not raised, so the caller decides what is undone.
 */
const COUNT_STEP = `
local function count(key, points, seconds)
  local made = redis.pcall('SET', key, 0, 'EX', seconds, 'NX')
  if type(made) == 'table' and made.err then return made end
  local consumed = redis.pcall('INCRBY', key, points)
  if type(consumed) == 'table' then return consumed end
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    redis.call('EXPIRE', key, seconds)
    ttl = 1000 * seconds
  end
  return {consumed, ttl}
end
`;

/** What one batch of acquires counted: requests in the window and held slots (each null when not counted). */
type Counted = [rate: [consumed: number, msLeft: number] | null, held: number | null];

/**
 * The scripts behind the limits. The counters are those rate-limiter-flexible's RateLimiterRedis keeps (same keys and
 * steps), so replicas of earlier versions share them during an upgrade; both counters of a batch are counted in one
 * call, with the slots given back since the last call. KEYS: the rate and the slot counter. ARGV: points, the
 * window's seconds (0: rate not counted), the hold's seconds (0: slots not counted), slots given back. The slots are
 * given back first; then the rate is counted: when its counter fails, no slot is taken; when the slot counter fails,
 * the rate stays counted, as for a request refused after it was counted.
 */
export const LIMIT_SCRIPTS = {
  count: defineLuaScript<
    {
      rateKey: string;
      busyKey: string;
      points: number;
      windowSeconds: number;
      holdSeconds: number;
      givenBack: number;
    },
    Counted
  >(
    `${COUNT_STEP}
local points, windowSeconds, holdSeconds = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local givenBack = tonumber(ARGV[4])
local rate, held = false, false
if givenBack > 0 then
  local given = count(KEYS[2], -givenBack, holdSeconds)
  if given.err then return given end
end
if windowSeconds > 0 then
  rate = count(KEYS[1], points, windowSeconds)
  if rate.err then return rate end
end
if holdSeconds > 0 then
  local slots = count(KEYS[2], points, holdSeconds)
  if slots.err then return slots end
  held = slots[1]
end
return {rate, held}
`,
    (a) => ({
      keys: [a.rateKey, a.busyKey],
      argv: [a.points, a.windowSeconds, a.holdSeconds, a.givenBack],
    }),
  ),
  /** Gives back slots: KEYS the slot counter, ARGV points and the hold's seconds. */
  giveBack: defineLuaScript<{ busyKey: string; points: number; holdSeconds: number }, unknown>(
    `${COUNT_STEP}
local given = count(KEYS[1], -tonumber(ARGV[1]), tonumber(ARGV[2]))
if given.err then return given end
return 1
`,
    (a) => ({ keys: [a.busyKey], argv: [a.points, a.holdSeconds] }),
  ),
};

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

/**
 * Slots of one key given back together: one give-back, sent alone or with the key's next count, whose outcome every
 * giver shares.
 */
interface PendingReturn {
  points: number;
  readonly sent: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (reason: unknown) => void;
}

/**
 * Per-endpoint, per-operation limits on Redis, shared by every job-router replica:
 * requests per fixed window against max(base, running workers × per-worker value), and concurrent requests (a
 * counter of held slots whose key lapses after `maxHoldMs`, so a crashed replica's slots are forgotten). A taken
 * concurrency slot is given back by the returned release.
 *
 * Group commit: the acquires of one key in one event-loop turn cost one call counting n points on both counters, and
 * its releases in one turn one give-back, which rides in that call when the key has one; each request still gets
 * exactly what n sequential acquires would give it. Its connection should not be auto-pipelined (see LIMITS_REDIS).
 */
export class JobRateLimiter {
  private readonly keyPrefix: string;
  private readonly windowSeconds: number;
  private readonly holdSeconds: number;
  private readonly acquiring = new Map<string, PendingAcquire>();
  private readonly returning = new Map<string, PendingReturn>();

  constructor(
    private readonly redis: Redis,
    private readonly options: JobRateLimitOptions,
    private readonly workers: RunningWorkerCount,
  ) {
    this.keyPrefix = `${options.keyPrefix ?? ''}limits`;
    this.windowSeconds = Math.max(1, Math.ceil(options.windowMs / 1000));
    this.holdSeconds = Math.max(1, Math.ceil(options.maxHoldMs / 1000));
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
    // The key's slots given back since its last call go with this one, counted off first (see giveBack).
    const returned = this.returning.get(key);
    this.returning.delete(key);
    // Both counters in one call, n points each; request i is the (consumed - n + 1 + i)-th. A failed call fails the
    // batch (flush's caller rejects every request with its error) and holds no slot.
    const counting = LIMIT_SCRIPTS.count.run(this.redis, {
      rateKey: this.counterKey('rate', key),
      busyKey: this.counterKey('busy', key),
      points: n,
      windowSeconds: limit.requests > 0 ? this.windowSeconds : 0,
      holdSeconds: limit.concurrent > 0 ? this.holdSeconds : 0,
      givenBack: returned?.points ?? 0,
    });
    if (returned) counting.then(returned.resolve, returned.reject);
    const [rate, held] = await counting;
    const counted = rate ? { consumed: Number(rate[0]), msBeforeNext: Number(rate[1]) } : undefined;
    const holding = held === null ? undefined : Number(held);
    await this.settle(batch, await this.verdicts(batch, counted, holding), holding !== undefined);
  }

  /** A counter's key: rate-limiter-flexible's `<prefix>limits:<rate|busy>:<key>`. */
  private counterKey(counter: 'rate' | 'busy', key: string): string {
    return `${this.keyPrefix}:${counter}:${key}`;
  }

  /** Each request's outcome, in the order n sequential acquires would check it: the rate first, then concurrency. */
  private async verdicts(
    batch: PendingAcquire,
    counted: { consumed: number; msBeforeNext: number } | undefined,
    held: number | undefined,
  ): Promise<Verdict[]> {
    const { endpointId, caller, operation, limit, waiters } = batch;
    const offset = 1 - waiters.length;
    // Only a batch with a request over the base limit pays for the worker count, once; a caller has the base only.
    const overBase =
      counted && counted.consumed > limit.requests
        ? caller === undefined
          ? await this.overBaseLimit(endpointId, limit.requests)
          : { effective: limit.requests }
        : undefined;
    return waiters.map((_, i): Verdict => {
      const rateCount = counted ? counted.consumed + offset + i : 0;
      if (overBase && rateCount > limit.requests) {
        if ('reason' in overBase) return overBase;
        if (rateCount > overBase.effective)
          return { reason: this.overRate(operation, overBase.effective, counted?.msBeforeNext ?? 0) };
      }
      if (held !== undefined && held + offset + i > limit.concurrent) {
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
   * Answers the batch. Refused requests that took a slot give it back (one give-back for all) before they are answered,
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
   * Gives back slots of a key; the slots given back until the turn's 'after-io' edge go out as one give-back, with the
   * key's acquire batch when one is flushed first at that edge (whichever was scheduled first), else alone. Either way
   * it is on the Redis client before any later acquire of the key is counted: the caller of the request that held
   * the slot reads the answer (the route pipeline gives the slot back before it answers) and sends its next request
   * no earlier than this turn's I/O, so that request joins a batch already pending, which takes the give-back with it
   * and counts it off first, or a batch flushed after it. ioredis keeps the order of commands, auto-pipelined or not,
   * and Redis runs them in order, so that next acquire finds the slot free.
   */
  private giveBack(key: string, points: number): Promise<void> {
    const pending = this.returning.get(key);
    if (pending) {
      pending.points += points;
      return pending.sent;
    }
    let settle: Pick<PendingReturn, 'resolve' | 'reject'> | undefined;
    const sent = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    const batch: PendingReturn = { points, sent, ...settle! };
    this.returning.set(key, batch);
    atTurnEnd('after-io', () => {
      // Gone when an acquire batch of the key took it along.
      if (this.returning.get(key) !== batch) return;
      this.returning.delete(key);
      LIMIT_SCRIPTS.giveBack
        .run(this.redis, { busyKey: this.counterKey('busy', key), points: batch.points, holdSeconds: this.holdSeconds })
        .then(batch.resolve, batch.reject);
    });
    return sent;
  }
}
