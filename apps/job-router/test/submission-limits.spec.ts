import { type Admission, RedisJobEngine } from '@runplane/jobs';
import { bullPrefix, closeRedis, createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, TEST_REDIS_URL, testRedisPrefix } from '@runplane/testing';
import { JobRateLimiter, RateLimitedError, type Release } from '../src/limits/job-rate-limiter';
import { LIMIT_SCRIPTS } from '../src/limits/limit-scripts';
import { parseLimitOverrides } from '../src/limits/limit-table';

/**
 * The limits of /run and /runsync, counted by the script that records the job (JobRateLimiter.admit on a real
 * engine): one call per request, exactly the answers of the limiter's own count, and each counter on one connection.
 */
describe('JobRateLimiter.admit (limits counted with the submission)', () => {
  const prefix = testRedisPrefix('jr-admit');
  let limitsRedis: Redis;
  let engineRedis: Redis;
  let engine: RedisJobEngine;
  const workers = { runningWorkers: jest.fn(async (_endpointId: string) => 0) };

  beforeAll(() => {
    limitsRedis = createRedis(TEST_REDIS_URL);
    engineRedis = createRedis(TEST_REDIS_URL);
    engine = new RedisJobEngine({ queueOrdered: engineRedis, prefix, region: 'u1' });
  });
  afterAll(async () => {
    await engine.close();
    await cleanupRedisPrefix(engineRedis, prefix);
    await cleanupRedisPrefix(engineRedis, bullPrefix(prefix));
    await Promise.all([closeRedis(engineRedis), closeRedis(limitsRedis)]);
  });
  beforeEach(() => workers.runningWorkers.mockReset().mockResolvedValue(0));
  afterEach(() => jest.restoreAllMocks());

  /** A limiter with `limits` over the base ones (10 s window), its submissions recorded on the engine's connection. */
  const withLimits = (limits: string, perWorker = 0) =>
    new JobRateLimiter(
      limitsRedis,
      {
        windowMs: 10_000,
        perWorker,
        overrides: parseLimitOverrides(limits),
        maxHoldMs: 60_000,
        keyPrefix: prefix,
        submissionRedis: engineRedis,
      },
      workers,
    );
  const counter = (kind: 'rate' | 'busy', key: string) => engineRedis.get(`${prefix}limits:${kind}:${key}`);
  /** Submits one job to `endpointId` through the limiter: its id and the release of its slot. */
  const submit = (rl: JobRateLimiter, endpointId: string, operation: 'run' | 'runsync' = 'run', caller?: string) =>
    rl.admit(endpointId, operation, caller, (admission: Admission | undefined) =>
      engine.submit({
        endpointId,
        accountId: 'acct-1',
        input: {},
        extra: {},
        policy: { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: false },
        sync: operation === 'runsync',
        admission,
      }),
    );
  const queued = async (endpointId: string) => (await engine.counts(endpointId)).inQueue;
  /** Outcomes of `n` submissions one after the other. */
  async function sequence(rl: JobRateLimiter, endpointId: string, n: number): Promise<Array<'ok' | RateLimitedError>> {
    const outcomes: Array<'ok' | RateLimitedError> = [];
    for (let i = 0; i < n; i += 1) {
      outcomes.push(
        await submit(rl, endpointId).then(
          () => 'ok' as const,
          (error: unknown) => {
            if (!(error instanceof RateLimitedError)) throw error;
            return error;
          },
        ),
      );
    }
    return outcomes;
  }

  it('counts each submission in its record script alone: the base admitted, the rest refused with 429 info', async () => {
    const counts = jest.spyOn(LIMIT_SCRIPTS.count, 'run');
    const outcomes = await sequence(withLimits('run=3/0'), 'ep-base', 5);
    expect(outcomes.slice(0, 3)).toEqual(['ok', 'ok', 'ok']);
    for (const refused of outcomes.slice(3)) {
      expect(refused).toBeInstanceOf(RateLimitedError);
      expect(refused).toMatchObject({
        code: 'RATE_LIMITED',
        message: 'Rate limit exceeded for run on this endpoint (3 requests per 10 s)',
      });
      const { retryAfterSeconds } = refused as RateLimitedError;
      expect(retryAfterSeconds >= 1 && retryAfterSeconds <= 10).toBe(true);
    }
    expect(counts).not.toHaveBeenCalled();
    expect(await queued('ep-base')).toBe(3);
    expect(await counter('rate', 'ep-base:run')).toBe('5');
  });

  it('shares its counters with requests counted first (another replica, /retry): one budget', async () => {
    const rl = withLimits('run=3/0');
    await rl.acquire('ep-shared', 'run');
    await withLimits('run=3/0').acquire('ep-shared', 'run');
    expect(await sequence(rl, 'ep-shared', 2)).toEqual(['ok', expect.any(RateLimitedError)]);
    expect(await queued('ep-shared')).toBe(1);
  });

  it('over the base, reads the worker count once, submits again with the rate counted once, and refuses above the raise', async () => {
    workers.runningWorkers.mockResolvedValue(2);
    const rl = withLimits('run=2/0', 3);
    const records = jest.spyOn(engine, 'submit');
    const outcomes = await sequence(rl, 'ep-raised', 8);
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(6);
    expect(outcomes.slice(6)).toEqual([
      expect.objectContaining({ message: 'Rate limit exceeded for run on this endpoint (6 requests per 10 s)' }),
      expect.objectContaining({ message: 'Rate limit exceeded for run on this endpoint (6 requests per 10 s)' }),
    ]);
    expect(workers.runningWorkers.mock.calls).toEqual([['ep-raised']]);
    // The third request (the first over the base) went twice: refused at the base, then recorded with its rate
    // counted already. The later ones were counted against the raise read for it: one call each.
    expect(records).toHaveBeenCalledTimes(9);
    expect(records.mock.calls[3]?.[0].admission).toMatchObject({ windowSeconds: 0, maxRequests: 6 });
    expect(records.mock.calls[4]?.[0].admission).toMatchObject({ windowSeconds: 10, maxRequests: 6 });
    expect(await counter('rate', 'ep-raised:run')).toBe('8');
    expect(await queued('ep-raised')).toBe(6);
  });

  it("counts a public model's caller on its own counters at the base, never raised", async () => {
    workers.runningWorkers.mockResolvedValue(100);
    const rl = withLimits('run=1/0', 3);
    await submit(rl, 'ep-model', 'run', 'acct-caller');
    await expect(submit(rl, 'ep-model', 'run', 'acct-caller')).rejects.toBeInstanceOf(RateLimitedError);
    await submit(rl, 'ep-model', 'run', 'acct-other');
    expect(workers.runningWorkers).not.toHaveBeenCalled();
    expect(await counter('rate', 'ep-model:run:caller:acct-caller')).toBe('2');
    expect(await counter('rate', 'ep-model:run')).toBeNull();
  });

  it('fails with the worker count’s error, nothing recorded, when the raise cannot be read', async () => {
    const unavailable = new Error('engine unavailable');
    workers.runningWorkers.mockRejectedValue(unavailable);
    const rl = withLimits('run=1/0', 3);
    await submit(rl, 'ep-no-count');
    await expect(submit(rl, 'ep-no-count')).rejects.toBe(unavailable);
    expect(await queued('ep-no-count')).toBe(1);
  });

  it('holds a slot until released; the give-back rides in the key’s next submission, which finds it free', async () => {
    const rl = withLimits('runsync=0/1');
    const giveBacks = jest.spyOn(LIMIT_SCRIPTS.giveBack, 'run');
    const first = await submit(rl, 'ep-slot', 'runsync');
    await expect(submit(rl, 'ep-slot', 'runsync')).rejects.toMatchObject({
      retryAfterSeconds: 1,
      message: 'Too many concurrent runsync requests for this endpoint (limit 1)',
    });
    expect(await counter('busy', 'ep-slot:runsync')).toBe('1');
    // Released in the same turn as the next submission: its give-back goes in that submission's script.
    const released = first.release();
    const second = await submit(rl, 'ep-slot', 'runsync');
    await released;
    expect(giveBacks).not.toHaveBeenCalled();
    expect(await counter('busy', 'ep-slot:runsync')).toBe('1');
    // With no submission of its key in its turn, a release goes alone, on the connection the key is counted on.
    await second.release();
    expect(giveBacks.mock.calls.map(([connection, args]) => [connection, args.points])).toEqual([[engineRedis, 1]]);
    expect(await counter('busy', 'ep-slot:runsync')).toBe('0');
    expect(await queued('ep-slot')).toBe(2);
  });

  it('counts the submitting operations on the submissions’ connection, every other on its own', async () => {
    const counts = jest.spyOn(LIMIT_SCRIPTS.count, 'run');
    const rl = withLimits('run=5/1,cancel=5/1');
    const releases: Release[] = await Promise.all([rl.acquire('ep-conn', 'run'), rl.acquire('ep-conn', 'cancel')]);
    expect(counts.mock.calls.map(([connection, args]) => [args.rateKey, connection])).toEqual([
      [`${prefix}limits:rate:ep-conn:run`, engineRedis],
      [`${prefix}limits:rate:ep-conn:cancel`, limitsRedis],
    ]);
    await Promise.all(releases.map((release) => release()));
  });
});
