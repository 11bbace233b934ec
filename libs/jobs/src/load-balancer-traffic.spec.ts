import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix, TEST_REDIS_URL, testRedisPrefix } from '@runplane/testing';
import {
  drainedOut,
  LB_DRAIN_MAX_MS,
  LB_SNAPSHOT_STALE_MS,
  LoadBalancerTraffic,
  mergeLbSnapshots,
} from './load-balancer-traffic';

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
      routers: 2,
      draining: new Map(),
    });
  });
});

describe('drainedOut', () => {
  const retiredAt = 1_000_000;
  const after = retiredAt + LB_SNAPSHOT_STALE_MS;
  const snapshot = (draining: string[], inFlight: Record<string, number> = {}) => ({
    at: after,
    waiting: 0,
    inFlight,
    requestsPerSecond: 0,
    draining,
  });

  it('lets a worker go once every live replica knows it drains and has nothing in flight on it', () => {
    const both = mergeLbSnapshots([snapshot(['w1']), snapshot(['w1'])], after);
    expect(drainedOut(both, 'w1', retiredAt, after)).toBe(true);
    expect(drainedOut(both, 'w1', retiredAt, after - 1)).toBe(false);
    // A replica that has not read the mark yet could still give it a request.
    const oneUnaware = mergeLbSnapshots([snapshot(['w1']), snapshot([])], after);
    expect(drainedOut(oneUnaware, 'w1', retiredAt, after)).toBe(false);
    const busy = mergeLbSnapshots([snapshot(['w1']), snapshot(['w1'], { w1: 1 })], after);
    expect(drainedOut(busy, 'w1', retiredAt, after)).toBe(false);
    // No live replica: none serves the endpoint, and a new one reads the mark before its first request.
    expect(drainedOut(mergeLbSnapshots([], after), 'w1', retiredAt, after)).toBe(true);
  });

  it('lets a worker go after the longest drain whatever is still in flight', () => {
    const busy = mergeLbSnapshots([{ ...snapshot(['w1'], { w1: 2 }), at: retiredAt + LB_DRAIN_MAX_MS }], after);
    expect(drainedOut(busy, 'w1', retiredAt, retiredAt + LB_DRAIN_MAX_MS - 1)).toBe(false);
    expect(drainedOut(busy, 'w1', retiredAt, retiredAt + LB_DRAIN_MAX_MS)).toBe(true);
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
