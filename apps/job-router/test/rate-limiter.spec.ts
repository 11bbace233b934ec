import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, testRedisPrefix } from '@runplane/testing';
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

  it('keeps RunPod base limits unless overridden, and rejects malformed overrides', () => {
    expect(limiter(0).limitOf('runsync')).toEqual(DEFAULT_LIMITS.runsync);
    expect(limiter(0).limitOf('run')).toEqual({ requests: 2, concurrent: 0 });
    expect(() => parseLimitOverrides('run=fast')).toThrow('"run=fast": expected <operation>=<requests>/<concurrent>');
    expect(() => parseLimitOverrides('walk=1/1')).toThrow(/unknown operation/);
  });
});
