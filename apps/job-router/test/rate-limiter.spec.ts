import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, pollUntil, testRedisPrefix } from '@runplane/testing';
import { RateLimiterRedis } from '@runplane/http';
import { JobRateLimiter, RateLimitedError } from '../src/limits/job-rate-limiter';
import { LIMIT_SCRIPTS } from '../src/limits/limit-scripts';
import { DEFAULT_LIMITS, type LimitedOperation, parseLimitOverrides } from '../src/limits/limit-table';

describe('JobRateLimiter (Redis)', () => {
  const prefix = testRedisPrefix('jr-rate');
  let redis: Redis;
  let running = 0;
  const workers = { runningWorkers: async () => running };

  beforeAll(() => {
    redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: prefix });
  });
  afterAll(async () => {
    await cleanupRedisPrefix(redis, prefix);
    redis.disconnect();
  });
  afterEach(() => jest.restoreAllMocks());

  /** A limiter with `limits` overriding the base ones, a 10 s window and slots held at most 60 s. */
  const withLimits = (limits: string, perWorker = 0, count = workers) =>
    new JobRateLimiter(
      redis,
      { windowMs: 10_000, perWorker, overrides: parseLimitOverrides(limits), maxHoldMs: 60_000 },
      count,
    );
  /** Two `/run` requests per window, raised by `perWorker` per running worker. */
  const limiter = (perWorker: number) => withLimits('run=2/0', perWorker);

  async function admitted(rl: JobRateLimiter, endpointId: string, count: number): Promise<number> {
    let ok = 0;
    for (let i = 0; i < count; i += 1) {
      try {
        await rl.acquire(endpointId, 'run');
        ok += 1;
      } catch (error) {
        expect(error).toBeInstanceOf(RateLimitedError);
      }
    }
    return ok;
  }

  it('admits the base limit when no worker runs', async () => {
    running = 0;
    expect(await admitted(limiter(3), 'ep-a', 5)).toBe(2);
  });

  it('raises the limit to running workers × per-worker value when that is larger', async () => {
    running = 2;
    expect(await admitted(limiter(3), 'ep-b', 10)).toBe(6);
  });

  it('shares counts across limiter instances (replicas) on the same Redis', async () => {
    running = 0;
    expect(await admitted(limiter(0), 'ep-c', 1)).toBe(1);
    expect(await admitted(limiter(0), 'ep-c', 3)).toBe(1);
  });

  it('holds a concurrency slot until released, refuses the next with Retry-After 1, and frees the slot once', async () => {
    const rl = withLimits('cancel=0/1');
    const release = await rl.acquire('ep-d', 'cancel');
    await expect(rl.acquire('ep-d', 'cancel')).rejects.toMatchObject({
      retryAfterSeconds: 1,
      message: expect.stringContaining('concurrent'),
    });
    await release();
    await release();
    const next = await rl.acquire('ep-d', 'cancel');
    await expect(rl.acquire('ep-d', 'cancel')).rejects.toBeInstanceOf(RateLimitedError);
    await next();
  });

  it('gives back the slot of a request refused for its rate, and forgets slots held longer than maxHoldMs', async () => {
    const rl = new JobRateLimiter(
      redis,
      { windowMs: 10_000, perWorker: 0, overrides: parseLimitOverrides('cancel=1/1'), maxHoldMs: 100 },
      workers,
    );
    const release = await rl.acquire('ep-e', 'cancel');
    await release();
    await expect(rl.acquire('ep-e', 'cancel')).rejects.toMatchObject({
      message: expect.stringContaining('Rate limit exceeded'),
    });
    const holder = new JobRateLimiter(
      redis,
      { windowMs: 10_000, perWorker: 0, overrides: parseLimitOverrides('stream=0/1'), maxHoldMs: 100 },
      workers,
    );
    // A replica that crashed while holding its slot never releases it: the slot lapses after maxHoldMs.
    await holder.acquire('ep-e', 'stream');
    await expect(holder.acquire('ep-e', 'stream')).rejects.toBeInstanceOf(RateLimitedError);
    await pollUntil(
      async () =>
        await holder.acquire('ep-e', 'stream').then(
          () => true,
          () => false,
        ),
      { timeoutMs: 5_000 },
    );
  });

  it('keeps RunPod base limits unless overridden, and rejects malformed overrides', () => {
    expect(limiter(0).limitOf('runsync')).toEqual(DEFAULT_LIMITS.runsync);
    expect(limiter(0).limitOf('run')).toEqual({ requests: 2, concurrent: 0 });
    expect(() => parseLimitOverrides('run=fast')).toThrow('"run=fast": expected <operation>=<requests>/<concurrent>');
    expect(() => parseLimitOverrides('walk=1/1')).toThrow(/unknown operation/);
  });
  describe('group commit (acquires and releases of one key in one event-loop turn)', () => {
    /** `n` acquires issued in the same turn, settled in arrival order. */
    const burst = (rl: JobRateLimiter, endpointId: string, operation: LimitedOperation, n: number) =>
      Promise.allSettled(Array.from({ length: n }, () => rl.acquire(endpointId, operation)));
    const statuses = (outcomes: PromiseSettledResult<unknown>[]) => outcomes.map((outcome) => outcome.status);
    const reasons = (outcomes: PromiseSettledResult<unknown>[]) =>
      outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    const admittedReleases = (outcomes: PromiseSettledResult<() => Promise<void>>[]) =>
      outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const times = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

    it('counts a burst with one call of n points, admits exactly the limit in arrival order and refuses the rest with 429 info', async () => {
      running = 0;
      const count = jest.spyOn(LIMIT_SCRIPTS.count, 'run');
      const rl = withLimits('run=3/0');
      const outcomes = await burst(rl, 'ep-burst', 'run', 8);
      expect(statuses(outcomes)).toEqual([...times(3, 'fulfilled'), ...times(5, 'rejected')]);
      for (const reason of reasons(outcomes)) {
        expect(reason).toBeInstanceOf(RateLimitedError);
        expect(reason).toMatchObject({
          code: 'RATE_LIMITED',
          message: 'Rate limit exceeded for run on this endpoint (3 requests per 10 s)',
        });
        const { retryAfterSeconds } = reason as RateLimitedError;
        expect(retryAfterSeconds >= 1 && retryAfterSeconds <= 10).toBe(true);
      }
      expect(count.mock.calls.map(([, args]) => args)).toEqual([
        {
          rateKey: 'limits:rate:ep-burst:run',
          busyKey: 'limits:busy:ep-burst:run',
          points: 8,
          windowSeconds: 10,
          holdSeconds: 0,
          givenBack: 0,
        },
      ]);
      expect(await redis.get('limits:rate:ep-burst:run')).toBe('8');
    });

    it('continues counting across batches as sequential requests would', async () => {
      running = 0;
      const rl = withLimits('run=3/0');
      expect(statuses(await burst(rl, 'ep-batches', 'run', 2))).toEqual(['fulfilled', 'fulfilled']);
      expect(statuses(await burst(rl, 'ep-batches', 'run', 3))).toEqual(['fulfilled', 'rejected', 'rejected']);
      // Another key (operation) in the same turn is its own batch with its own budget.
      const [run, cancel] = await Promise.allSettled([
        rl.acquire('ep-batches', 'run'),
        rl.acquire('ep-batches', 'cancel'),
      ]);
      expect([run?.status, cancel?.status]).toEqual(['rejected', 'fulfilled']);
    });

    it('refuses concurrent holders beyond the limit, gives back their slots at once, and frees all with one give-back', async () => {
      const giveBack = jest.spyOn(LIMIT_SCRIPTS.giveBack, 'run');
      const given = () => giveBack.mock.calls.map(([, args]) => [args.busyKey, args.points]);
      const rl = withLimits('cancel=0/3');
      const outcomes = await burst(rl, 'ep-busy', 'cancel', 5);
      expect(statuses(outcomes)).toEqual([...times(3, 'fulfilled'), ...times(2, 'rejected')]);
      for (const reason of reasons(outcomes)) {
        expect(reason).toMatchObject({
          code: 'RATE_LIMITED',
          retryAfterSeconds: 1,
          message: 'Too many concurrent cancel requests for this endpoint (limit 3)',
        });
      }
      // The refused requests' slots were given back (one call) before they were answered.
      expect(given()).toEqual([['limits:busy:ep-busy:cancel', 2]]);
      expect(await redis.get('limits:busy:ep-busy:cancel')).toBe('3');
      const releases = admittedReleases(outcomes);
      const first = releases[0];
      if (!first) throw new Error('no release');
      // Releases of one turn (one repeated: still idempotent) go out as one call.
      await Promise.all([...releases, first].map((release) => release()));
      expect(given()).toEqual([
        ['limits:busy:ep-busy:cancel', 2],
        ['limits:busy:ep-busy:cancel', 3],
      ]);
      expect(await redis.get('limits:busy:ep-busy:cancel')).toBe('0');
      await first();
      expect(await redis.get('limits:busy:ep-busy:cancel')).toBe('0');
      expect(statuses(await burst(rl, 'ep-busy', 'cancel', 4))).toEqual([...times(3, 'fulfilled'), 'rejected']);
    });

    it('counts a release off before the acquires of its turn, even those already waiting, in their one call', async () => {
      const rl = withLimits('cancel=0/1');
      const held = await rl.acquire('ep-order', 'cancel');
      const count = jest.spyOn(LIMIT_SCRIPTS.count, 'run');
      const giveBack = jest.spyOn(LIMIT_SCRIPTS.giveBack, 'run');
      const next = rl.acquire('ep-order', 'cancel');
      const released = held();
      const release = await next;
      await released;
      expect(await redis.get('limits:busy:ep-order:cancel')).toBe('1');
      expect(count.mock.calls.map(([, args]) => [args.points, args.givenBack])).toEqual([[1, 1]]);
      expect(giveBack).not.toHaveBeenCalled();
      // With no acquire of its key in its turn, a release goes alone.
      await release();
      expect(await redis.get('limits:busy:ep-order:cancel')).toBe('0');
      expect(giveBack.mock.calls.map(([, args]) => args.points)).toEqual([1]);
    });

    it('fails the whole batch with the Redis error and takes no slot', async () => {
      const giveBack = jest.spyOn(LIMIT_SCRIPTS.giveBack, 'run');
      const rl = withLimits('cancel=5/5');
      // A key of the wrong type makes Redis fail the rate counter (WRONGTYPE); the slot counter would work.
      await redis.hset('limits:rate:ep-broken:cancel', 'x', '1');
      const outcomes = await burst(rl, 'ep-broken', 'cancel', 4);
      expect(statuses(outcomes)).toEqual(times(4, 'rejected'));
      const [error, ...others] = reasons(outcomes);
      expect(String(error)).toMatch(/WRONGTYPE/);
      expect(error).not.toBeInstanceOf(RateLimitedError);
      for (const other of others) expect(other).toBe(error);
      expect(giveBack).not.toHaveBeenCalled();
      expect(await redis.get('limits:busy:ep-broken:cancel')).toBeNull();
    });

    it('gives back nothing when the slot counter itself failed', async () => {
      const giveBack = jest.spyOn(LIMIT_SCRIPTS.giveBack, 'run');
      const rl = withLimits('cancel=5/5');
      await redis.hset('limits:busy:ep-broken-busy:cancel', 'x', '1');
      const outcomes = await burst(rl, 'ep-broken-busy', 'cancel', 3);
      expect(statuses(outcomes)).toEqual(times(3, 'rejected'));
      for (const reason of reasons(outcomes)) expect(String(reason)).toMatch(/WRONGTYPE/);
      expect(giveBack).not.toHaveBeenCalled();
      // As before batching, the requests were still counted against the rate.
      expect(await redis.get('limits:rate:ep-broken-busy:cancel')).toBe('3');
    });

    it('applies the per-worker limit in a batch, reading the worker count once and only when over the base', async () => {
      const count = { runningWorkers: jest.fn(async () => 2) };
      const rl = withLimits('run=2/0', 3, count);
      expect(statuses(await burst(rl, 'ep-workers', 'run', 2))).toEqual(times(2, 'fulfilled'));
      expect(count.runningWorkers).not.toHaveBeenCalled();
      const outcomes = await burst(rl, 'ep-workers', 'run', 8);
      expect(statuses(outcomes)).toEqual([...times(4, 'fulfilled'), ...times(4, 'rejected')]);
      for (const reason of reasons(outcomes))
        expect(reason).toMatchObject({ message: 'Rate limit exceeded for run on this endpoint (6 requests per 10 s)' });
      expect(count.runningWorkers.mock.calls).toEqual([['ep-workers']]);
    });

    it('fails only the requests over the base when the worker count cannot be read', async () => {
      const unavailable = new Error('engine unavailable');
      const rl = withLimits('run=2/0', 3, { runningWorkers: async () => Promise.reject(unavailable) });
      const outcomes = await burst(rl, 'ep-no-workers', 'run', 4);
      expect(statuses(outcomes)).toEqual([...times(2, 'fulfilled'), ...times(2, 'rejected')]);
      for (const reason of reasons(outcomes)) expect(reason).toBe(unavailable);
    });
  });

  it('counts on the counters rate-limiter-flexible keeps, so replicas of earlier versions share them', async () => {
    // An earlier replica's counters: rate-limiter-flexible's RateLimiterRedis under the same key prefixes.
    const earlierRate = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'limits:rate',
      points: 1e9,
      duration: 10,
    });
    const earlierBusy = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: 'limits:busy',
      points: 1e9,
      duration: 60,
    });
    await earlierRate.consume('ep-upgrade:cancel', 2);
    await earlierBusy.consume('ep-upgrade:cancel', 1);
    const rl = withLimits('cancel=3/2');
    const release = await rl.acquire('ep-upgrade', 'cancel');
    await expect(rl.acquire('ep-upgrade', 'cancel')).rejects.toMatchObject({
      message: expect.stringContaining('Rate limit'),
    });
    expect((await earlierRate.get('ep-upgrade:cancel'))?.consumedPoints).toBe(4);
    expect((await earlierBusy.get('ep-upgrade:cancel'))?.consumedPoints).toBe(2);
    await release();
    expect((await earlierBusy.get('ep-upgrade:cancel'))?.consumedPoints).toBe(1);
    expect(await redis.pttl('limits:busy:ep-upgrade:cancel')).toBeGreaterThan(0);
  });
});
