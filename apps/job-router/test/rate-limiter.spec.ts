import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, pollUntil, testRedisPrefix } from '@runplane/testing';
import { JobRateLimiter, RateLimitedError } from '../src/limits/job-rate-limiter';
import { DEFAULT_LIMITS, parseLimitOverrides } from '../src/limits/limit-table';

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

  const limiter = (perWorker: number) =>
    new JobRateLimiter(redis, { windowMs: 10_000, perWorker, overrides: parseLimitOverrides('run=2/0'), maxHoldMs: 60_000 }, workers);

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
    const rl = new JobRateLimiter(redis, { windowMs: 10_000, perWorker: 0, overrides: parseLimitOverrides('cancel=0/1'), maxHoldMs: 60_000 }, workers);
    const release = await rl.acquire('ep-d', 'cancel');
    await expect(rl.acquire('ep-d', 'cancel')).rejects.toMatchObject({ retryAfterSeconds: 1, message: expect.stringContaining('concurrent') });
    await release();
    await release();
    const next = await rl.acquire('ep-d', 'cancel');
    await expect(rl.acquire('ep-d', 'cancel')).rejects.toBeInstanceOf(RateLimitedError);
    await next();
  });

  it('gives back the slot of a request refused for its rate, and forgets slots held longer than maxHoldMs', async () => {
    const rl = new JobRateLimiter(redis, { windowMs: 10_000, perWorker: 0, overrides: parseLimitOverrides('cancel=1/1'), maxHoldMs: 100 }, workers);
    const release = await rl.acquire('ep-e', 'cancel');
    await release();
    await expect(rl.acquire('ep-e', 'cancel')).rejects.toMatchObject({ message: expect.stringContaining('Rate limit exceeded') });
    const holder = new JobRateLimiter(redis, { windowMs: 10_000, perWorker: 0, overrides: parseLimitOverrides('stream=0/1'), maxHoldMs: 100 }, workers);
    // A replica that crashed while holding its slot never releases it: the slot lapses after maxHoldMs.
    await holder.acquire('ep-e', 'stream');
    await expect(holder.acquire('ep-e', 'stream')).rejects.toBeInstanceOf(RateLimitedError);
    await pollUntil(async () => (await holder.acquire('ep-e', 'stream').then(() => true, () => false)), { timeoutMs: 5_000 });
  });

  it('keeps RunPod base limits unless overridden, and rejects malformed overrides', () => {
    expect(limiter(0).limitOf('runsync')).toEqual(DEFAULT_LIMITS.runsync);
    expect(limiter(0).limitOf('run')).toEqual({ requests: 2, concurrent: 0 });
    expect(() => parseLimitOverrides('run=fast')).toThrow('"run=fast": expected <operation>=<requests>/<concurrent>');
    expect(() => parseLimitOverrides('walk=1/1')).toThrow(/unknown operation/);
  });
});
