import { cleanupRedisPrefix, pollUntil, testRedisPrefix } from '@runplane/testing';
import { bullPrefix, createRedis, EndpointQueues, type Redis } from './index';

const REDIS_URL = 'redis://127.0.0.1:6379';

describe('EndpointQueues', () => {
  const prefix = testRedisPrefix('endpoint-queues');
  let redis: Redis;
  let queues: EndpointQueues;
  const returned: string[] = [];

  beforeAll(() => {
    redis = createRedis(REDIS_URL);
    queues = new EndpointQueues(
      { redis, prefix },
      { lockMs: 200, stalledCheckMs: 100, onReturned: (endpointId) => returned.push(endpointId) },
    );
  });
  afterAll(async () => {
    await queues.close();
    await cleanupRedisPrefix(redis, bullPrefix(prefix));
    await redis.quit();
  });

  it('hands out ids in submission order, one taker each, and forgets released ones', async () => {
    await queues.add('ep1', 'a');
    await queues.add('ep1', 'b');
    await queues.add('ep1', 'a'); // a duplicate id is not queued twice
    expect(await queues.waitingCount('ep1')).toBe(2);
    const first = await queues.fetch('ep1', 't1');
    const second = await queues.fetch('ep1', 't2');
    expect([first?.id, second?.id]).toEqual(['a', 'b']);
    expect(await queues.fetch('ep1', 't3')).toBeUndefined();
    await first?.release();
    await second?.release();
    expect(await queues.present('ep1', ['a', 'b'])).toEqual(new Set());
    // A released id can be queued again (a retried job keeps its id).
    await queues.add('ep1', 'a');
    expect((await queues.fetch('ep1', 't4'))?.id).toBe('a');
  });

  it('keeps endpoints apart', async () => {
    await queues.add('ep2', 'x');
    expect(await queues.fetch('ep3', 't')).toBeUndefined();
    expect((await queues.fetch('ep2', 't'))?.id).toBe('x');
  });

  it('removes waiting entries but not fetched ones', async () => {
    await queues.add('ep4', 'w');
    await queues.add('ep4', 'f');
    expect(await queues.remove('ep4', 'w')).toBe(true);
    expect(await queues.remove('ep4', 'missing')).toBe(true);
    const fetched = await queues.fetch('ep4', 'tok');
    expect(fetched?.id).toBe('f');
    expect(await queues.remove('ep4', 'f')).toBe(false);
    expect(await queues.present('ep4', ['w', 'f'])).toEqual(new Set(['f']));
  });

  it('returns an entry whose taker died before releasing it, and says so', async () => {
    await queues.add('ep5', 'lost');
    expect((await queues.fetch('ep5', 'crashed'))?.id).toBe('lost');
    // The taker never releases: once the lock lapses the stalled check puts the entry back.
    const again = await pollUntil(() => queues.fetch('ep5', 'next'), { timeoutMs: 5_000, intervalMs: 50 });
    expect(again.id).toBe('lost');
    expect(returned).toContain('ep5');
    await again.release();
  });

  it('keeps a waiting entry in one compact hash, and leaves nothing of a released one', async () => {
    const jobId = '0b9e5d0c-3d51-4c5e-9f0e-1f2a3b4c5d6e-u1';
    await queues.add('ep6', jobId);
    const entryKey = `${bullPrefix(prefix)}:${EndpointQueues.queueName('ep6')}:${jobId}`;
    expect(JSON.parse((await redis.hget(entryKey, 'opts')) ?? '')).toEqual({ jobId });
    expect(await redis.object('ENCODING', entryKey)).toBe('listpack');
    await (await queues.fetch('ep6', 'tok'))?.release();
    expect(await redis.exists(entryKey)).toBe(0);
    const completed = `${bullPrefix(prefix)}:${EndpointQueues.queueName('ep6')}:completed`;
    expect(await redis.zcard(completed)).toBe(0);
  });
});
