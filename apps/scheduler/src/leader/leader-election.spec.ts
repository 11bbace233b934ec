import { createRedis } from '@runplane/queue';
import { cleanupRedisPrefix, testRedisPrefix } from '@runplane/testing';
import { RedisLeaderElection } from './leader-election';

describe('RedisLeaderElection', () => {
  const prefix = testRedisPrefix('leader');
  const redis = createRedis('redis://127.0.0.1:6379', { keyPrefix: prefix });

  afterAll(async () => {
    const plain = createRedis('redis://127.0.0.1:6379');
    await cleanupRedisPrefix(plain, prefix);
    plain.disconnect();
    redis.disconnect();
  });

  it('lets one replica lead, renews its lease, and hands over on release', async () => {
    const a = new RedisLeaderElection(redis, 5_000);
    const b = new RedisLeaderElection(redis, 5_000);
    expect(await a.acquireOrRenew()).toBe(true);
    expect(await b.acquireOrRenew()).toBe(false);
    expect(await a.acquireOrRenew()).toBe(true);
    await a.release();
    expect(a.isLeader()).toBe(false);
    expect(await b.acquireOrRenew()).toBe(true);
    expect(await a.acquireOrRenew()).toBe(false);
  });

  it('a lease that is not renewed expires and another replica takes over', async () => {
    const a = new RedisLeaderElection(redis, 1_000, 'other-lock');
    const b = new RedisLeaderElection(redis, 1_000, 'other-lock');
    expect(await a.acquireOrRenew()).toBe(true);
    // The leader stopped renewing and Redis expired its key (removed here instead of waiting for the TTL).
    await redis.del('other-lock');
    expect(await b.acquireOrRenew()).toBe(true);
    // The old leader finds out at its next renewal instead of acting on a lease it lost.
    expect(await a.acquireOrRenew()).toBe(false);
  });
});
