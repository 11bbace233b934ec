import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix, testRedisPrefix } from '@runplane/testing';
import { WorkerStateStore } from './worker-states';

describe('WorkerStateStore', () => {
  const prefix = testRedisPrefix('worker-states');
  const redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: prefix });
  const store = new WorkerStateStore(redis);

  afterAll(async () => {
    const plain = createRedis('redis://127.0.0.1:6379');
    await cleanupRedisPrefix(plain, prefix);
    plain.disconnect();
    redis.disconnect();
  });

  it('replaces an endpoint’s worker states as a whole and counts them per state', async () => {
    await store.replace('ep1', [
      { workerId: 'a', state: 'running' },
      { workerId: 'b', state: 'idle' },
      { workerId: 'c', state: 'unhealthy', reason: 'Exit code 3' },
    ]);
    await store.replace('ep1', [
      { workerId: 'throttled-1', state: 'throttled', reason: 'no capacity' },
      { workerId: 'c', state: 'unhealthy', reason: 'Exit code 3' },
      { workerId: 'd', state: 'running' },
      { workerId: 'b', state: 'running' },
    ]);
    const read = await store.read('ep1');
    expect(read.counts).toEqual({ initializing: 0, idle: 0, running: 2, unhealthy: 1, throttled: 1 });
    // In the order of the states, then by worker id.
    expect(read.workers).toEqual([
      { workerId: 'b', state: 'running' },
      { workerId: 'd', state: 'running' },
      { workerId: 'c', state: 'unhealthy', reason: 'Exit code 3' },
      { workerId: 'throttled-1', state: 'throttled', reason: 'no capacity' },
    ]);
    expect(await redis.ttl('workers:state:ep1')).toBeGreaterThan(0);
  });

  it('an endpoint without workers reads as empty, and remove forgets one', async () => {
    await store.replace('ep2', []);
    expect((await store.read('ep2')).workers).toEqual([]);
    await store.remove('ep1');
    expect((await store.read('ep1')).counts.running).toBe(0);
  });

  it('publishes the endpoint’s waiting reason with its worker states, even with no worker, and drops it on the next pass', async () => {
    const waiting = {
      code: 'NO_CAPACITY' as const,
      message: 'No capacity for NVIDIA A40',
      gpuTypeIds: ['NVIDIA A40'],
      at: '2026-11-24T12:00:00.000Z',
    };
    await store.replace('ep-wait', [], waiting);
    const read = await store.read('ep-wait');
    expect(read.waiting).toEqual(waiting);
    expect(read.workers).toEqual([]);
    expect(await redis.ttl('workers:state:ep-wait')).toBeGreaterThan(0);
    await store.replace('ep-wait', [{ workerId: 'a', state: 'idle' }]);
    expect((await store.read('ep-wait')).waiting).toBeNull();
  });

  it('patches part of the states: sets and drops entries, keeps or drops the waiting reason, and restarts the expiry', async () => {
    const waiting = { code: 'NO_CAPACITY' as const, message: 'No capacity', at: '2026-11-24T12:00:00.000Z' };
    await store.replace(
      'ep-patch',
      [
        { workerId: 'a', state: 'initializing' },
        { workerId: 'b', state: 'initializing' },
      ],
      waiting,
    );
    await redis.expire('workers:state:ep-patch', 5);
    await store.patch('ep-patch', {
      set: [
        { workerId: 'a', state: 'idle' },
        { workerId: 'c', state: 'running' },
      ],
      removed: ['b'],
    });
    const patched = await store.read('ep-patch');
    expect(patched.workers).toEqual([
      { workerId: 'a', state: 'idle' },
      { workerId: 'c', state: 'running' },
    ]);
    expect(patched.waiting).toEqual(waiting);
    expect(await redis.ttl('workers:state:ep-patch')).toBeGreaterThan(5);
    await store.patch('ep-patch', { set: [], removed: [], waiting: null });
    expect((await store.read('ep-patch')).waiting).toBeNull();
    await store.patch('ep-patch', { set: [], removed: ['a', 'c'] });
    expect(await redis.exists('workers:state:ep-patch')).toBe(0);
  });
});
