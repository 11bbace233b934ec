import { WorkerStateStore } from '@runplane/endpoints';
import type { ScalingWorker } from '@runplane/placement';
import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix, testRedisPrefix } from '@runplane/testing';
import { type EndpointState, StatePublisher } from './state-publisher';

/** A worker as the pass sees it: starting, idle or busy. */
function worker(id: string, phase: 'initializing' | 'idle' | 'busy'): ScalingWorker {
  return { id, initializing: phase === 'initializing', busy: phase === 'busy' } as ScalingWorker;
}

function stateOf(workers: ScalingWorker[], extra: Partial<EndpointState> = {}): EndpointState {
  return { workers, unhealthy: [], throttled: [], waiting: null, ...extra };
}

describe('StatePublisher', () => {
  const prefix = testRedisPrefix('state-publisher');
  const redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: prefix });
  const store = new WorkerStateStore(redis);
  let now = 0;
  const writes: string[] = [];
  // The real store, with each write it is asked for noted.
  const counted: Pick<WorkerStateStore, 'replace' | 'patch'> = {
    replace: async (...args) => {
      writes.push(`replace ${args[1].length}`);
      await store.replace(...args);
    },
    patch: async (endpointId, change) => {
      writes.push(
        `patch set=${change.set.map((entry) => entry.workerId).join(',')} removed=${change.removed.join(',')}`,
      );
      await store.patch(endpointId, change);
    },
  };
  const publisher = new StatePublisher(counted, () => now);

  beforeEach(() => (writes.length = 0));

  afterAll(async () => {
    await cleanupRedisPrefix(redis, prefix);
    redis.disconnect();
  });

  it('writes the whole list first, then only the entries that changed, and the whole list again after 10 s', async () => {
    now = 1_000;
    await publisher.publish('ep', stateOf([worker('a', 'initializing'), worker('b', 'initializing')]));
    now = 1_200;
    await publisher.publish(
      'ep',
      stateOf([worker('a', 'idle'), worker('b', 'initializing'), worker('c', 'initializing')]),
    );
    now = 1_400;
    await publisher.publish('ep', stateOf([worker('a', 'busy'), worker('c', 'initializing')]));
    // Nothing changed: nothing written.
    now = 1_600;
    await publisher.publish('ep', stateOf([worker('a', 'busy'), worker('c', 'initializing')]));
    expect(writes).toEqual(['replace 2', 'patch set=a,c removed=', 'patch set=a removed=b']);
    expect((await store.read('ep')).workers).toEqual([
      { workerId: 'c', state: 'initializing' },
      { workerId: 'a', state: 'running' },
    ]);
    now = 11_000;
    await publisher.publish('ep', stateOf([worker('a', 'busy'), worker('c', 'initializing')]));
    expect(writes.at(-1)).toBe('replace 2');
  });

  it('patches a worker that becomes throttled or unhealthy, and the waiting reason only when more than its time changed', async () => {
    now = 50_000;
    const waiting = { code: 'NO_CAPACITY' as const, message: 'No capacity', at: '2026-11-24T12:00:00.000Z' };
    await publisher.publish('ep-reasons', stateOf([worker('a', 'idle'), worker('b', 'idle')]));
    now = 50_200;
    await publisher.publish(
      'ep-reasons',
      stateOf([worker('a', 'idle'), worker('b', 'idle')], {
        throttled: [{ workerId: 'b', state: 'throttled', reason: 'no capacity' }],
        waiting,
      }),
    );
    now = 50_400;
    await publisher.publish(
      'ep-reasons',
      stateOf([worker('a', 'idle')], {
        throttled: [{ workerId: 'b', state: 'throttled', reason: 'no capacity' }],
        unhealthy: [{ workerId: 'd', state: 'unhealthy', reason: 'Exit code 3' }],
        waiting: { ...waiting, at: '2026-11-24T12:00:01.000Z' },
      }),
    );
    expect(writes).toEqual(['replace 2', 'patch set=b removed=', 'patch set=d removed=']);
    const read = await store.read('ep-reasons');
    expect(read.counts).toEqual({ initializing: 0, idle: 1, running: 0, unhealthy: 1, throttled: 1 });
    expect(read.waiting).toEqual(waiting);
    now = 50_600;
    await publisher.publish('ep-reasons', stateOf([worker('a', 'idle')]));
    expect(writes.at(-1)).toBe('patch set= removed=d,b');
    expect((await store.read('ep-reasons')).waiting).toBeNull();
  });

  it('writes an idle endpoint’s empty state once and never again', async () => {
    now = 100_000;
    await publisher.publish('ep-idle', stateOf([]));
    now = 200_000;
    await publisher.publish('ep-idle', stateOf([]));
    expect(writes).toEqual(['replace 0']);
  });
});
