import type { RedisJobEngine } from './redis-job-engine';
import { WorkerRetirement } from './worker-retirement';
import { parkedOn, startEngine, submission, type EngineFixture } from './__fixtures__/engine';

/**
 * Workers the scheduler removes are retired in the engine's keys: no job is claimed for them any more, on either
 * replica and by any way a job reaches a take (hand-over, hand-off, claim by id, take from the queue), and an idle worker is
 * retired only while it holds no job. Two engines on one prefix play two job-router replicas.
 */
describe('WorkerRetirement', () => {
  let f: EngineFixture;
  let other: RedisJobEngine;
  let retirement: WorkerRetirement;
  let n = 0;
  const endpoint = () => `ep${++n}`;

  beforeAll(() => {
    f = startEngine('jobs-retirement');
    other = f.replica();
    retirement = new WorkerRetirement(f.redis, f.prefix);
  });
  afterAll(async () => {
    await f.close();
  });
  afterEach(() => expect(f.errors).toEqual([]));

  it('tells when each retired worker of a list was retired, leaving out the others', async () => {
    const ep = endpoint();
    await retirement.retire(ep, 'a', 1_000);
    await retirement.retire(ep, 'c', 3_000);
    expect(await retirement.retiredAmong(ep, ['a', 'b', 'c'])).toEqual(
      new Map([
        ['a', 1_000],
        ['c', 3_000],
      ]),
    );
    expect(await retirement.retiredAmong(ep, [])).toEqual(new Map());
  });

  it('retires an idle worker only while it holds no job; retire() marks a busy one too', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    expect(
      (await f.engine.take({ endpointId: ep, workerId: 'busy', count: 1, waitMs: 0 })).map((job) => job.id),
    ).toEqual([run.id]);
    expect(await retirement.retireIdle(ep, 'busy')).toBe(false);
    // Not retired: it takes the next job as before.
    const next = await f.engine.submit(submission(ep));
    expect(
      (await f.engine.take({ endpointId: ep, workerId: 'busy', count: 1, waitMs: 0 })).map((job) => job.id),
    ).toEqual([next.id]);

    expect(await retirement.retireIdle(ep, 'idle')).toBe(true);
    await retirement.retire(ep, 'busy');
    const third = await f.engine.submit(submission(ep));
    expect(await f.engine.take({ endpointId: ep, workerId: 'busy', count: 1, waitMs: 0 })).toEqual([]);
    expect(await f.engine.take({ endpointId: ep, workerId: 'idle', count: 1, waitMs: 0 })).toEqual([]);
    // Its held jobs are untouched: it may still finish them.
    await f.engine.complete(ep, 'busy', run.id, { output: { done: true } });
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'COMPLETED', output: { done: true } });
    expect(await f.engine.get(ep, third.id)).toEqual({ id: third.id, status: 'IN_QUEUE', retries: 0 });
  });

  it('takes a retired worker out of the live workers at once, though its process still pings and takes; retiredAt says when', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    expect(
      (await f.engine.take({ endpointId: ep, workerId: 'busy', count: 1, waitMs: 0 })).map((job) => job.id),
    ).toEqual([run.id]);
    await f.engine.heartbeat(ep, 'idle');
    expect(await f.engine.workers(ep)).toEqual({ idle: ['idle'], running: ['busy'] });
    expect(await retirement.retiredAt(ep, 'idle')).toBeNull();

    expect(await retirement.retireIdle(ep, 'idle', 1_700_000_000_123)).toBe(true);
    await retirement.retire(ep, 'busy', 1_700_000_000_456);
    expect(await f.engine.workers(ep)).toEqual({ idle: [], running: [] });
    // Asked to stop, the processes ping (and take) on for a moment: that brings neither back.
    await f.engine.heartbeat(ep, 'idle');
    await f.engine.heartbeat(ep, 'busy', [run.id]);
    expect(await f.engine.take({ endpointId: ep, workerId: 'idle', count: 1, waitMs: 0 })).toEqual([]);
    expect(await f.engine.workers(ep)).toEqual({ idle: [], running: [] });
    expect(await other.workers(ep)).toEqual({ idle: [], running: [] });
    expect(await retirement.retiredAt(ep, 'idle')).toBe(1_700_000_000_123);
    expect(await retirement.retiredAt(ep, 'busy')).toBe(1_700_000_000_456);
  });

  it('ends a retired take parked on the submitting replica empty, and the job goes to a take of another worker', async () => {
    const ep = endpoint();
    const retired = f.engine.take({ endpointId: ep, workerId: 'gone', count: 1, waitMs: 60_000 });
    await parkedOn(f.engine, 1);
    const live = f.engine.take({ endpointId: ep, workerId: 'live', count: 1, waitMs: 60_000 });
    await parkedOn(f.engine, 2);
    await retirement.retireIdle(ep, 'gone');
    const run = await f.engine.submit(submission(ep));
    expect(await retired).toEqual([]);
    expect((await live).map((job) => job.id)).toEqual([run.id]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'live', retries: 0 });
  });

  it('skips a retired take registered by another replica: the job goes to the next registered take', async () => {
    const ep = endpoint();
    const hangUp = new AbortController();
    const retired = other.take({ endpointId: ep, workerId: 'gone', count: 1, waitMs: 60_000, signal: hangUp.signal });
    await parkedOn(other, 1);
    const live = other.take({ endpointId: ep, workerId: 'live', count: 1, waitMs: 60_000 });
    await parkedOn(other, 2);
    await retirement.retire(ep, 'gone');
    const run = await f.engine.submit(submission(ep));
    expect((await live).map((job) => job.id)).toEqual([run.id]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'live' });
    hangUp.abort();
    expect(await retired).toEqual([]);
  });

  it('ends a retired take woken with a job id empty and passes the wake to another take there', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    // Out of the queue, so only the claim by the id the wake names can give it out.
    await f.redis.zrem(f.keys.endpoint(ep, 'queued'), run.id);
    const retired = other.take({ endpointId: ep, workerId: 'gone', count: 1, waitMs: 60_000 });
    await parkedOn(other, 1);
    const live = other.take({ endpointId: ep, workerId: 'live', count: 1, waitMs: 60_000 });
    await parkedOn(other, 2);
    await retirement.retire(ep, 'gone');
    await f.wakeFromAnotherReplica(ep, run.id);
    expect(await retired).toEqual([]);
    expect((await live).map((job) => job.id)).toEqual([run.id]);
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'live' });
  });

  it('leaves the queue untouched when a retired worker takes', async () => {
    const ep = endpoint();
    const first = await f.engine.submit(submission(ep, { input: { n: 1 } }));
    const second = await f.engine.submit(submission(ep, { input: { n: 2 } }));
    await retirement.retire(ep, 'gone');
    expect(await f.engine.take({ endpointId: ep, workerId: 'gone', count: 2, waitMs: 0 })).toEqual([]);
    expect(await f.queued(ep)).toEqual([first.id, second.id]);
    expect(await f.engine.get(ep, first.id)).toEqual({ id: first.id, status: 'IN_QUEUE', retries: 0 });
    expect((await other.take({ endpointId: ep, workerId: 'live', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual([
      first.id,
    ]);
    expect((await other.take({ endpointId: ep, workerId: 'live', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual([
      second.id,
    ]);
  });
});
