import { bullPrefix, createRedis, type Redis } from '@runplane/queue';
import { startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { RedisJobEngine } from './redis-job-engine';

const HOOK = 'https://example.com/hook';
const GRACE_MS = 5_000;

describe('RedisJobEngine: webhook outbox', () => {
  let f: EngineFixture;
  let n = 0;
  const endpoint = () => `ob${++n}`;
  const outboxKey = () => f.keys.outbox;
  /** Ids of the webhook.deliver jobs BullMQ holds for a job (any state). */
  const deliveries = async (jobId: string) =>
    (await f.redis.keys(`${bullPrefix(f.prefix)}:webhooks:${jobId}-*`)).filter((key) => !key.includes(':lock'));

  beforeAll(() => {
    f = startEngine('jobs-outbox', { outboxGraceMs: GRACE_MS });
  });
  afterAll(() => f.close());

  /**
   * A second engine on the same keys, on its own Redis client: a job-router replica that loses its connection (as
   * when the process dies) right after the Lua step that finished a job with a webhook, before it queues the webhook.
   */
  async function doomedReplica(): Promise<{ engine: RedisJobEngine; redis: Redis; errors: Error[] }> {
    const redis = createRedis('redis://127.0.0.1:6379');
    const evalsha = redis.evalsha.bind(redis) as (...args: unknown[]) => Promise<unknown>;
    redis.evalsha = (async (...args: unknown[]) => {
      const reply = await evalsha(...args);
      if (reply === 'webhook') redis.disconnect();
      return reply;
    }) as typeof redis.evalsha;
    const errors: Error[] = [];
    const engine = new RedisJobEngine({
      queueOrdered: redis,
      prefix: f.prefix,
      region: 'u1',
      clock: f.clock,
      onError: (e) => errors.push(e),
    });
    return { engine, redis, errors };
  }

  it('queues the webhook right after job-done and leaves the outbox empty, with the account in the payload', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep, { webhook: HOOK }));
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.complete(ep, 'w1', run.id, { output: 1 });
    const [key] = await deliveries(run.id);
    expect(JSON.parse((await f.redis.hget(key ?? '', 'data')) ?? '{}').payload).toMatchObject({
      endpointId: ep,
      jobId: run.id,
      url: HOOK,
      accountId: 'acct-1',
      record: { id: run.id, status: 'COMPLETED', output: 1 },
    });
    expect(await f.redis.zcard(outboxKey())).toBe(0);
    // Jobs without a webhook never enter the outbox.
    const plain = await f.engine.submit(submission(ep));
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.complete(ep, 'w1', plain.id, { output: 2 });
    expect(await f.redis.zcard(outboxKey())).toBe(0);
    expect(await deliveries(plain.id)).toEqual([]);
  });

  it('delivers the webhook of a job whose replica died before queueing it, once, when another replica sweeps', async () => {
    const ep = endpoint();
    const doomed = await doomedReplica();
    const run = await doomed.engine.submit(submission(ep, { webhook: HOOK }));
    await doomed.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    await doomed.engine.complete(ep, 'w1', run.id, { output: 'late' });
    expect(doomed.errors.length).toBeGreaterThan(0);
    await doomed.engine.close();
    expect(await deliveries(run.id)).toEqual([]);
    expect(await f.redis.zrange(outboxKey(), '0', '-1')).toEqual([`${ep}/${run.id}`]);

    // Within the grace period the entry is left to the request that made it; after it, the sweep relays it.
    await f.engine.sweep();
    expect(await deliveries(run.id)).toEqual([]);
    f.clock.advance(GRACE_MS);
    await f.engine.sweep();
    expect(await deliveries(run.id)).toHaveLength(1);
    expect(await f.redis.zcard(outboxKey())).toBe(0);

    // A relay replayed after the queueing (the entry's removal was lost) adds nothing: the delivery id is fixed.
    const doneAt = await f.redis.hget(f.keys.job(ep, run.id), 'doneAt');
    await f.redis.zadd(outboxKey(), doneAt ?? '0', `${ep}/${run.id}`);
    f.clock.advance(GRACE_MS);
    await f.engine.sweep();
    await f.engine.sweep();
    expect(await deliveries(run.id)).toEqual([`${bullPrefix(f.prefix)}:webhooks:${run.id}-${doneAt}`]);
    expect(await f.redis.zcard(outboxKey())).toBe(0);
  });

  it('records sweep and cancel transitions too, and drops entries of jobs deleted before their relay', async () => {
    const ep = endpoint();
    const cancelled = await f.engine.submit(submission(ep, { webhook: HOOK }));
    await f.engine.cancel(ep, cancelled.id);
    expect(await deliveries(cancelled.id)).toHaveLength(1);
    const timedOut = await f.engine.submit(
      submission(ep, { webhook: HOOK, policy: { executionTimeoutMs: 5_000, ttlMs: 86_400_000, lowPriority: false } }),
    );
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    f.clock.advance(6_000);
    await f.engine.sweep();
    expect(await deliveries(timedOut.id)).toHaveLength(1);
    // An entry whose job is gone has nothing to deliver: it is dropped.
    await f.redis.zadd(outboxKey(), '1', `${ep}/gone-u1`);
    await f.engine.sweep();
    expect(await f.redis.zcard(outboxKey())).toBe(0);
    expect(await deliveries('gone-u1')).toEqual([]);
  });
});
