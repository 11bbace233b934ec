import { createRedis, type Redis } from '@runplane/queue';
import { testRedisPrefix } from '@runplane/testing';
import { Wakeups } from './wakeups';

const REDIS_URL = 'redis://127.0.0.1:6379';

/** Parks a caller on `channel` whose attempt finds nothing until woken; resolves 'woken' or 'timeout'. */
function parkOn(wakeups: Wakeups, channel: string, single = false): Promise<'woken' | 'timeout'> {
  let attempts = 0;
  return wakeups
    .park({ channel, single, waitMs: 60_000, attempt: async () => (++attempts > 1 ? 'woken' : undefined) })
    .then((value) => value ?? 'timeout');
}

/** Resolves once `wakeups` has `count` parked callers. */
async function parked(wakeups: Wakeups, count: number): Promise<void> {
  while (wakeups.parked() < count) await new Promise((resolve) => setImmediate(resolve));
}

describe('Wakeups across replicas', () => {
  const channel = `${testRedisPrefix('wakeups')}wake`;
  let redis: Redis;
  let a: Wakeups;
  let b: Wakeups;

  beforeAll(() => {
    redis = createRedis(REDIS_URL);
    a = new Wakeups(redis, channel);
    b = new Wakeups(redis, channel);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await redis.quit();
  });

  it('wakes a caller of its own replica at once, without a message through Redis', async () => {
    const waiting = parkOn(a, 'j|ep1|job1');
    await parked(a, 1);
    a.notify('j|ep1|job1');
    await expect(waiting).resolves.toBe('woken');
  });

  it('answers a caller with what a local waker passed along, without another attempt', async () => {
    let attempts = 0;
    const waiting = a.park({
      channel: 'j|ep4|job4',
      waitMs: 60_000,
      attempt: async () => (++attempts > 1 ? 'read again' : undefined),
      accept: (news) => (typeof news === 'string' ? `news: ${news}` : undefined),
    });
    await parked(a, 1);
    a.notify('j|ep4|job4', 'finished');
    await expect(waiting).resolves.toBe('news: finished');
    expect(attempts).toBe(1);
  });

  it('delivers a queued-job wake once on its own replica and once on each other replica', async () => {
    const [a1, a2] = [parkOn(a, 't|ep2', true), parkOn(a, 't|ep2', true)];
    const b1 = parkOn(b, 't|ep2', true);
    await parked(a, 2);
    await parked(b, 1);
    // What the engine does for a queued job: wake one local taker, publish for the others.
    a.notify('t|ep2');
    await redis.publish(channel, a.queuedMessage('ep2'));
    await expect(b1).resolves.toBe('woken');
    // A marker published after the wake: once replica a has delivered it, it has also seen its own copy of the wake.
    const marker = parkOn(a, 'j|ep2|marker');
    await parked(a, 2);
    await redis.publish(channel, 'j|ep2|marker');
    await expect(marker).resolves.toBe('woken');
    expect(a.parked()).toBe(1);
    // The other local taker is still parked, ready for the next job.
    a.notify('t|ep2');
    expect(await Promise.all([a1, a2])).toEqual(['woken', 'woken']);
  });

  it('delivers queued-job wakes from another replica, and untagged ones, to one taker each', async () => {
    const a1 = parkOn(a, 't|ep3', true);
    await parked(a, 1);
    await redis.publish(channel, b.queuedMessage('ep3'));
    await expect(a1).resolves.toBe('woken');
    const a2 = parkOn(a, 't|ep3', true);
    await parked(a, 1);
    await redis.publish(channel, 't|ep3');
    await expect(a2).resolves.toBe('woken');
  });
});
