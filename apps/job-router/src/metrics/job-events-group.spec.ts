import { createRedis, type Redis } from '@runplane/queue';
import { cleanupRedisPrefix, pollUntil, testRedisPrefix } from '@runplane/testing';
import { GROUP_TIMINGS, type GroupTimings, JobEventsGroup, METRICS_GROUP } from './job-events-group';

const REDIS_URL = 'redis://127.0.0.1:6379';

describe('JobEventsGroup', () => {
  const prefix = testRedisPrefix('events-group');
  const stream = `${prefix}jobs:events`;
  let redis: Redis;
  const groups: JobEventsGroup[] = [];

  beforeAll(() => {
    redis = createRedis(REDIS_URL);
  });
  afterEach(async () => {
    await Promise.all(groups.splice(0).map((group) => group.stop()));
    await redis.del(stream);
  });
  afterAll(async () => {
    await cleanupRedisPrefix(redis, prefix);
    await redis.quit();
  });

  function member(seen: string[], timings?: GroupTimings): JobEventsGroup {
    const group = new JobEventsGroup(
      createRedis(REDIS_URL),
      stream,
      (fields) => seen.push(fields['jobId'] ?? ''),
      (error) => {
        throw error;
      },
      timings,
    );
    groups.push(group);
    group.start();
    return group;
  }

  const groupExists = async (): Promise<boolean> => {
    const groups = (await redis.xinfo('GROUPS', stream).catch(() => [])) as unknown[][];
    return groups.some((entry) => entry[1] === METRICS_GROUP);
  };

  it('hands each event to exactly one of the replicas, so their counts add up to the events', async () => {
    const a: string[] = [];
    const b: string[] = [];
    member(a);
    member(b);
    await pollUntil(groupExists, { description: 'the metrics group' });
    const ids = Array.from({ length: 300 }, (_, index) => `job-${index}`);
    for (const id of ids) await redis.xadd(stream, '*', 'type', 'job.queued', 'endpointId', 'ep', 'jobId', id);

    await pollUntil(() => a.length + b.length >= ids.length, { description: 'every event handled' });
    expect([...a, ...b].sort()).toEqual([...ids].sort());
    expect(await redis.xpending(stream, METRICS_GROUP)).toEqual([0, null, null, null]);
  });

  it('takes over the events a replica read and never acknowledged', async () => {
    await redis.xgroup('CREATE', stream, METRICS_GROUP, '$', 'MKSTREAM');
    await redis.xadd(stream, '*', 'type', 'job.finished', 'endpointId', 'ep', 'jobId', 'lost-1');
    // A replica that read the entry and died before acknowledging it.
    await redis.xreadgroup('GROUP', METRICS_GROUP, 'dead-replica', 'COUNT', 10, 'STREAMS', stream, '>');

    const seen: string[] = [];
    member(seen, { ...GROUP_TIMINGS, claimIdleMs: 200 });
    await pollUntil(() => seen.includes('lost-1'), { description: 'the abandoned entry claimed' });
    expect(seen).toEqual(['lost-1']);
    expect((await redis.xpending(stream, METRICS_GROUP))[0]).toBe(0);
  });

  it('forgets consumers idle past forgetIdleMs with nothing pending, and keeps those with pending entries', async () => {
    await redis.xgroup('CREATE', stream, METRICS_GROUP, '$', 'MKSTREAM');
    await redis.xgroup('CREATECONSUMER', stream, METRICS_GROUP, 'gone-replica');
    await redis.xadd(stream, '*', 'type', 'job.queued', 'endpointId', 'ep', 'jobId', 'held-1');
    await redis.xreadgroup('GROUP', METRICS_GROUP, 'busy-replica', 'COUNT', 10, 'STREAMS', stream, '>');
    const names = async (): Promise<string[]> =>
      ((await redis.xinfo('CONSUMERS', stream, METRICS_GROUP)) as unknown[][]).map((fields) => String(fields[1]));

    const seen: string[] = [];
    member(seen, { claimIdleMs: 600_000, forgetIdleMs: 100 });
    expect(await names()).toContain('gone-replica');
    // A consumer appears once it has read something; this replica has had nothing to read.
    await pollUntil(async () => (await names()).join(',') === 'busy-replica', {
      description: 'gone-replica forgotten, busy-replica kept',
    });
    expect(seen).toEqual([]);
  });
});
