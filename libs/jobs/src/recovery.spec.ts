import { startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { RedisJobEngine } from './redis-job-engine';

describe('RedisJobEngine: replicas and crash recovery', () => {
  let f: EngineFixture;
  let replica: RedisJobEngine;

  beforeAll(() => {
    f = startEngine('jobs-recovery');
    replica = new RedisJobEngine({ queueOrdered: f.redis, prefix: f.prefix, region: 'u1', clock: f.clock });
  });
  afterAll(async () => {
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
