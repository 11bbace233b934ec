import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix, TEST_REDIS_URL, testRedisPrefix } from '@runplane/testing';
import { LB_SNAPSHOT_STALE_MS, LoadBalancerTraffic, mergeLbSnapshots } from './load-balancer-traffic';

describe('mergeLbSnapshots', () => {
  it('sums live replicas and ignores a replica that stopped refreshing', () => {
    const now = 1_000_000;
    const view = mergeLbSnapshots(
      [
        { at: now - 100, waiting: 2, inFlight: { w1: 3 }, requestsPerSecond: 4 },
        { at: now - 200, waiting: 1, inFlight: { w1: 1, w2: 2 }, requestsPerSecond: 1.5 },
        { at: now - LB_SNAPSHOT_STALE_MS - 1, waiting: 9, inFlight: { w3: 9 }, requestsPerSecond: 9 },
      ],
      now,
    );
    expect(view).toEqual({
      waiting: 3,
      inFlight: new Map([
        ['w1', 4],
        ['w2', 2],
      ]),
      totalInFlight: 6,
      requestsPerSecond: 5.5,
    });
  });
});

describe('LoadBalancerTraffic', () => {
  const prefix = testRedisPrefix('lb-traffic');
  const redis = createRedis(TEST_REDIS_URL);
  const traffic = new LoadBalancerTraffic(redis, prefix);

  afterAll(async () => {
    await cleanupRedisPrefix(redis, prefix);
    redis.disconnect();
  });

  it('reads back what two replicas published for an endpoint, and nothing of another endpoint', async () => {
    const at = Date.now();
    await traffic.publish('ep1', 'router-a', { at, waiting: 1, inFlight: { w1: 2 }, requestsPerSecond: 3 });
    await traffic.publish('ep1', 'router-b', { at, waiting: 0, inFlight: { w2: 1 }, requestsPerSecond: 1 });
    await traffic.publish('ep2', 'router-a', { at, waiting: 7, inFlight: {}, requestsPerSecond: 0 });
    const view = await traffic.view('ep1', at);
    expect(view.waiting).toBe(1);
    expect(view.totalInFlight).toBe(3);
    expect(view.requestsPerSecond).toBe(4);
    expect(await redis.pttl(`${prefix}jobs:ep1:lb`)).toBeGreaterThan(0);
  });

  it('appends an lb.demand event to the engine event stream', async () => {
    await traffic.demand('ep9');
    const entries = await redis.xrange(`${prefix}jobs:events`, '-', '+');
    expect(entries.at(-1)?.[1]).toEqual(['type', 'lb.demand', 'endpointId', 'ep9']);
  });
});
