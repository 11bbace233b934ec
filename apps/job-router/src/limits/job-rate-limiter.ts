import { DomainError } from '@runplane/contracts';
import { atTurnEnd } from '@runplane/event-loop';
import { type Admission, type Refusal, SubmissionRefused } from '@runplane/jobs';
import type { Redis } from '@runplane/queue';
import { LIMIT_SCRIPTS } from './limit-scripts';
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
  /**
   * Prefix of the limiter's keys (for a client without keyPrefix); "" when the client prefixes keys itself. Counted
   * with a submission ({@link JobRateLimiter.admit}), the keys travel as script arguments: this must be the whole prefix.
   */
  keyPrefix?: string;
  /**
   * The connection jobs are recorded on (the engine's queue-free one; by default the limiter's own). The counters of
   * operations counted with submissions ({@link SUBMITTED_OPERATIONS}) are counted and given back on it alone, so Redis
   * runs a slot's give-back before any count of its key sent after it.
   */
  submissionRedis?: Redis;
}

/**
 * Operations whose routes count their limits in the script that records the job (/run and /runsync, see
 * {@link JobRateLimiter.admit}); /retry, which counts `run` before its own script, counts on the same connection.
 */
export const SUBMITTED_OPERATIONS: ReadonlySet<LimitedOperation> = new Set<LimitedOperation>(['run', 'runsync']);

/** How long a read of an endpoint's raised rate limit is used: the worker count is as old as its heartbeats anyway. */
const RAISED_LIMIT_FRESH_MS = 1_000;

/** Gives back the concurrency slot a request held. */
export type Release = () => Promise<void>;

const NOTHING_TO_RELEASE: Release = async () => undefined;

const ADMITTED = Symbol('admitted');

/** What one request of a batch gets: admitted, or refused with the reason its acquire rejects with. */
type Verdict = typeof ADMITTED | { readonly reason: unknown };

/** A counted operation of an endpoint: its counters' key (`<ep>:<op>`, a caller's `<ep>:<op>:caller:<account>`). */
interface LimitedKey {
  readonly key: string;
  readonly endpointId: string;
  /** A public model's caller: its own counters, at the base limits (no per-worker raise). */
  readonly caller: string | undefined;
  readonly operation: LimitedOperation;
  readonly limit: OperationLimit;
}

/** The acquires of one key in one event-loop turn, in arrival order, counted together when the turn ends. */
interface PendingAcquire extends LimitedKey {
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

/** An endpoint's rate limit over its base as last read (see {@link JobRateLimiter.raisedLimit}). */
interface RaisedLimit {
  readonly reading: Promise<number>;
  /** Known once read. */
  value?: number;
  readonly readAt: number;
}

/**
 * Per-endpoint, per-operation limits on Redis, shared by every job-router replica:
 * requests per fixed window against max(base, running workers × per-worker value), and concurrent requests (a
 * counter of held slots whose key lapses after `maxHoldMs`, so a crashed replica's slots are forgotten). A taken
 * concurrency slot is given back by the returned release.
 *
 * Two ways to count. A submitting route (/run, /runsync) has its counters counted by the script that records its job
 * ({@link admit}): one round trip for both. Any other route counts first ({@link acquire}), with group commit: the
 * acquires of one key in one event-loop turn cost one call counting n points on both counters. Either way the
 * releases of a key in one turn make one give-back, which rides in the key's next count (a batch's call or a
 * submission's script) when one is sent first, and each request gets exactly what sequential requests would get.
 * Neither of the limiter's connections may be auto-pipelined (see LIMITS_REDIS).
 */
export class JobRateLimiter {
  private readonly keyPrefix: string;
  private readonly windowSeconds: number;
  private readonly holdSeconds: number;
  private readonly submissionRedis: Redis;
  private readonly acquiring = new Map<string, PendingAcquire>();
  private readonly returning = new Map<string, PendingReturn>();
  /** Raised rate limits by endpoint, read at most once per RAISED_LIMIT_FRESH_MS. */
  private readonly raised = new Map<string, RaisedLimit>();

  constructor(
    private readonly redis: Redis,
    private readonly options: JobRateLimitOptions,
    private readonly workers: RunningWorkerCount,
  ) {
    this.keyPrefix = `${options.keyPrefix ?? ''}limits`;
    this.windowSeconds = Math.max(1, Math.ceil(options.windowMs / 1000));
    this.holdSeconds = Math.max(1, Math.ceil(options.maxHoldMs / 1000));
    this.submissionRedis = options.submissionRedis ?? redis;
  }

  /** The base limits of an operation after configuration overrides. */
  limitOf(operation: LimitedOperation): OperationLimit {
    return this.options.overrides[operation] ?? DEFAULT_LIMITS[operation];
  }

  /** The operation's counters on an endpoint, or undefined when it has no limit. */
  private limitedKey(
    endpointId: string,
    operation: LimitedOperation,
    caller: string | undefined,
  ): LimitedKey | undefined {
    const limit = this.limitOf(operation);
    if (limit.requests === 0 && limit.concurrent === 0) return undefined;
    const key = caller === undefined ? `${endpointId}:${operation}` : `${endpointId}:${operation}:caller:${caller}`;
    return { key, endpointId, caller, operation, limit };
  }

  /**
   * Counts one request; throws RateLimitedError when over a limit, else returns the release of its slot. With
   * `caller` (a public model's caller account) the request counts against that caller's own counters on the endpoint.
   */
  async acquire(endpointId: string, operation: LimitedOperation, caller?: string): Promise<Release> {
    const limited = this.limitedKey(endpointId, operation, caller);
    if (!limited) return NOTHING_TO_RELEASE;
    let batch = this.acquiring.get(limited.key);
    if (!batch) {
      const created: PendingAcquire = { ...limited, waiters: [] };
      this.acquiring.set(limited.key, created);
      // After the turn's I/O callbacks, so every request of the same key read in this turn joins the batch.
      atTurnEnd('after-io', () => {
        this.flush(created).catch((error: unknown) => created.waiters.forEach((waiter) => waiter.reject(error)));
      });
      batch = created;
    }
    const { waiters } = batch;
    return new Promise<Release>((resolve, reject) => waiters.push({ resolve, reject }));
  }

  /**
   * Counts one submission in the script that records its job: `submit` records it with the {@link Admission} it is
   * given (undefined when the operation has no limit), and the engine rejects with SubmissionRefused, nothing
   * recorded, when a counter refuses it. Resolves to what `submit` resolved to and the release of the request's slot;
   * rejects with RateLimitedError when over a limit. The script counts against the base rate, or the raised limit
   * this replica read in the last second; over it, the endpoint's raised limit is read and, when it admits the
   * request, `submit` is called once more with the rate already counted.
   */
  async admit<T>(
    endpointId: string,
    operation: LimitedOperation,
    caller: string | undefined,
    submit: (admission: Admission | undefined) => Promise<T>,
  ): Promise<{ result: T; release: Release }> {
    const limited = this.limitedKey(endpointId, operation, caller);
    if (!limited) return { result: await submit(undefined), release: NOTHING_TO_RELEASE };
    const { limit } = limited;
    const maxRequests =
      caller === undefined ? Math.max(limit.requests, this.knownRaise(endpointId) ?? 0) : limit.requests;
    const refusal = await this.submitCounted(limited, submit, limit.requests > 0, maxRequests);
    if ('result' in refusal) return refusal;
    if (refusal.counter === 'concurrency') throw this.overConcurrency(limited);
    const effective =
      caller === undefined ? await this.overBaseLimit(endpointId, limit.requests) : { effective: maxRequests };
    if ('reason' in effective) throw effective.reason;
    if (refusal.consumed > effective.effective) throw this.overRate(operation, effective.effective, refusal.msLeft);
    const again = await this.submitCounted(limited, submit, false, effective.effective);
    if ('result' in again) return again;
    // Only the slot is counted the second time.
    throw this.overConcurrency(limited);
  }

  /**
   * One call of `submit` with the key's admission (its rate counted when `countRate`), carrying the slots given back
   * since the key's last call; the result and the release of the slot taken, or the refusal.
   */
  private async submitCounted<T>(
    limited: LimitedKey,
    submit: (admission: Admission | undefined) => Promise<T>,
    countRate: boolean,
    maxRequests: number,
  ): Promise<{ result: T; release: Release } | Refusal> {
    const { key, limit } = limited;
    const returned = this.returning.get(key);
    this.returning.delete(key);
    const submitting = submit({
      rateKey: this.counterKey('rate', key),
      busyKey: this.counterKey('busy', key),
      windowSeconds: countRate ? this.windowSeconds : 0,
      holdSeconds: limit.concurrent > 0 ? this.holdSeconds : 0,
      maxRequests,
      maxConcurrent: limit.concurrent,
      givenBack: returned?.points ?? 0,
    });
    // A refused submission's script counted the give-back off all the same.
    if (returned) {
      submitting.then(returned.resolve, (error: unknown) =>
        error instanceof SubmissionRefused ? returned.resolve() : returned.reject(error),
      );
    }
    try {
      const result = await submitting;
      return { result, release: limit.concurrent > 0 ? this.releaseOf(limited) : NOTHING_TO_RELEASE };
    } catch (error) {
      if (error instanceof SubmissionRefused) return error.refusal;
      throw error;
    }
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
    const counting = LIMIT_SCRIPTS.count.run(this.connectionOf(batch.operation), {
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

  /** The connection an operation's counters are counted and given back on (see `submissionRedis`). */
  private connectionOf(operation: LimitedOperation): Redis {
    return SUBMITTED_OPERATIONS.has(operation) ? this.submissionRedis : this.redis;
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
      if (held !== undefined && held + offset + i > limit.concurrent) return { reason: this.overConcurrency(batch) };
      return ADMITTED;
    });
  }

  /** The rate limit of requests over the base: max(base, running workers × per-worker value), or why it is unknown. */
  private async overBaseLimit(endpointId: string, base: number): Promise<{ effective: number } | { reason: unknown }> {
    if (this.options.perWorker <= 0) return { effective: base };
    try {
      return { effective: Math.max(base, await this.raisedLimit(endpointId)) };
    } catch (reason) {
      return { reason };
    }
  }

  /**
   * Running workers × per-worker value for an endpoint, read at most once per RAISED_LIMIT_FRESH_MS (requests over the
   * base at the same time share one read); a failed read is not kept.
   */
  private raisedLimit(endpointId: string): Promise<number> {
    const now = performance.now();
    const known = this.raised.get(endpointId);
    if (known && now - known.readAt < RAISED_LIMIT_FRESH_MS) return known.reading;
    const entry: RaisedLimit = {
      readAt: now,
      reading: this.workers.runningWorkers(endpointId).then((running) => running * this.options.perWorker),
    };
    this.raised.set(endpointId, entry);
    entry.reading.then(
      (value) => {
        entry.value = value;
      },
      () => {
        if (this.raised.get(endpointId) === entry) this.raised.delete(endpointId);
      },
    );
    return entry.reading;
  }

  /** The raised limit read in the last RAISED_LIMIT_FRESH_MS, if there is one (a submission's script counts against it). */
  private knownRaise(endpointId: string): number | undefined {
    if (this.options.perWorker <= 0) return undefined;
    const known = this.raised.get(endpointId);
    return known && performance.now() - known.readAt < RAISED_LIMIT_FRESH_MS ? known.value : undefined;
  }

  private overRate(operation: LimitedOperation, effective: number, resetMs: number): RateLimitedError {
    const retryAfterSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    return new RateLimitedError(
      `Rate limit exceeded for ${operation} on this endpoint (${effective} requests per ${this.options.windowMs / 1000} s)`,
      retryAfterSeconds,
    );
  }

  private overConcurrency({ operation, limit }: LimitedKey): RateLimitedError {
    return new RateLimitedError(
      `Too many concurrent ${operation} requests for this endpoint (limit ${limit.concurrent})`,
      1,
    );
  }

  /**
   * Answers the batch. Refused requests that took a slot give it back (one give-back for all) before they are answered,
   * so a caller retrying after the 429 finds it free; a failed give-back is their error, as it was unbatched.
   */
  private async settle(batch: PendingAcquire, verdicts: Verdict[], held: boolean): Promise<void> {
    const { waiters } = batch;
    const refused: Array<{ reject: (reason: unknown) => void; reason: unknown }> = [];
    verdicts.forEach((verdict, i) => {
      const waiter = waiters[i];
      if (!waiter) return;
      if (verdict === ADMITTED) waiter.resolve(held ? this.releaseOf(batch) : NOTHING_TO_RELEASE);
      else refused.push({ reject: waiter.reject, reason: verdict.reason });
    });
    if (refused.length === 0) return;
    const givenBack = held
      ? await this.giveBack(batch, refused.length).then(
          () => undefined,
          (reason: unknown) => ({ reason }),
        )
      : undefined;
    for (const { reject, reason } of refused) reject(givenBack ? givenBack.reason : reason);
  }

  private releaseOf(limited: LimitedKey): Release {
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      await this.giveBack(limited, 1);
    };
  }

  /**
   * Gives back slots of a key; the slots given back until the turn's 'after-io' edge go out as one give-back, with the
   * key's next count when one is sent first (an acquire batch flushed first at that edge, whichever was scheduled
   * first, or a submission of the key in the meantime), else alone. Either way it is on the key's connection before
   * any later count of the key: the caller of the request that held the slot reads the answer (the slot is given
   * back before the answer is written) and sends its next request no earlier than this turn's I/O, so that request
   * joins a batch already pending, which takes the give-back with it and counts it off first, or is counted after it.
   * ioredis keeps the order of commands on a connection, every count of a key goes on the same connection (see
   * `submissionRedis`), and Redis runs them in order, so that next request finds the slot free.
   */
  private giveBack({ key, operation }: LimitedKey, points: number): Promise<void> {
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
      // Gone when a count of the key took it along.
      if (this.returning.get(key) !== batch) return;
      this.returning.delete(key);
      LIMIT_SCRIPTS.giveBack
        .run(this.connectionOf(operation), {
          busyKey: this.counterKey('busy', key),
          points: batch.points,
          holdSeconds: this.holdSeconds,
        })
        .then(batch.resolve, batch.reject);
    });
    return sent;
  }
}
