import { EndpointQueues } from '@runplane/queue';
import { startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { RedisJobEngine } from './redis-job-engine';

describe('RedisJobEngine: replicas and crash recovery', () => {
  let f: EngineFixture;
  let replica: RedisJobEngine;
  let foreign: EndpointQueues;

  beforeAll(() => {
    f = startEngine('jobs-recovery', { queues: { lockMs: 300, stalledCheckMs: 100 } });
    replica = new RedisJobEngine({ queueOrdered: f.redis, prefix: f.prefix, region: 'u1', clock: f.clock });
    // Plays a job-router replica that dies holding queue entries.
    foreign = new EndpointQueues({ redis: f.redis, prefix: f.prefix }, { lockMs: 300, stalledCheckMs: 60_000 });
  });
  afterAll(async () => {
    await foreign.close();
    await replica.close();
    await f.close();
  });

  it('wakes a take parked on one replica when a job is submitted on another', async () => {
    // A parked take never polls: unless woken, it ends empty when its wait runs out.
    const parked = replica.take({ endpointId: 'rep1', workerId: 'w1', count: 1, waitMs: 20_000 });
    await new Promise<void>((resolve) => setImmediate(resolve));
    const run = await f.engine.submit(submission('rep1'));
    expect((await parked).map((job) => job.id)).toEqual([run.id]);
    await replica.complete('rep1', 'w1', run.id, { output: 'from replica' });
    expect(await f.engine.get('rep1', run.id)).toMatchObject({ status: 'COMPLETED', output: 'from replica' });
  });

  it('hands out again a job whose taker died after fetching its entry and before claiming it', async () => {
    const run = await f.engine.submit(submission('rep2'));
    expect((await foreign.fetch('rep2', 'dead-token'))?.id).toBe(run.id);
    expect(await f.engine.take({ endpointId: 'rep2', workerId: 'w1', count: 1, waitMs: 0 })).toEqual([]);
    // The lock lapses, BullMQ's stalled check returns the entry and the parked take is woken.
    const taken = await f.engine.take({ endpointId: 'rep2', workerId: 'w1', count: 1, waitMs: 10_000 });
    expect(taken.map((job) => job.id)).toEqual([run.id]);
  });

  it('gives a queued job whose queue entry was lost its entry back on sweep', async () => {
    const run = await f.engine.submit(submission('rep3'));
    expect(await foreign.remove('rep3', run.id)).toBe(true);
    expect(await f.engine.take({ endpointId: 'rep3', workerId: 'w1', count: 1, waitMs: 0 })).toEqual([]);
    f.clock.advance(10_001);
    await f.engine.sweep();
    expect(
      (await f.engine.take({ endpointId: 'rep3', workerId: 'w1', count: 1, waitMs: 0 })).map((job) => job.id),
    ).toEqual([run.id]);
  });

  it('ends parked calls at once when the engine closes', async () => {
    const closing = new RedisJobEngine({ queueOrdered: f.redis, prefix: f.prefix, region: 'u1', clock: f.clock });
    // The waits outlast this test's own timeout, so only close() can end the calls.
    const parked = closing.take({ endpointId: 'rep4', workerId: 'w1', count: 1, waitMs: 600_000 });
    const stops = closing.stopRequests('rep4', 'w1', 600_000);
    await new Promise<void>((resolve) => setImmediate(resolve));
    await closing.close();
    expect(await parked).toEqual([]);
    expect(await stops).toEqual([]);
  }, 20_000);
});
