import { NotFoundError } from '@runplane/contracts';
import { parkedOn, startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { indexMember, QUEUE_TTL_ID } from './protocol';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('RedisJobEngine: time rules applied by sweep() on the injected clock', () => {
  let f: EngineFixture;
  let n = 0;
  const endpoint = () => `tr${++n}`;

  beforeAll(() => {
    f = startEngine('jobs-time-rules', { heartbeatIntervalMs: 10_000, maxRetries: 2 });
  });
  afterAll(() => f.close());

  const policy = (executionTimeoutMs: number, ttlMs = 86_400_000) => ({
    executionTimeoutMs,
    ttlMs,
    lowPriority: false,
  });

  async function running(ep: string, worker: string, overrides = {}) {
    const run = await f.engine.submit(submission(ep, overrides));
    const [taken] = await f.engine.take({ endpointId: ep, workerId: worker, count: 1, waitMs: 0 });
    expect(taken?.id).toBe(run.id);
    return run.id;
  }

  it('times a job out after its executionTimeout, tells the worker to stop, and ignores its late result', async () => {
    const ep = endpoint();
    const id = await running(ep, 'w1', { policy: policy(5_000) });
    f.clock.advance(4_999);
    await f.engine.sweep();
    expect((await f.engine.get(ep, id)).status).toBe('IN_PROGRESS');
    const stops = f.engine.stopRequests(ep, 'w1', 20_000);
    f.clock.advance(1);
    await f.engine.sweep();
    expect(await stops).toEqual([id]);
    expect(await f.engine.get(ep, id)).toMatchObject({
      status: 'TIMED_OUT',
      executionTime: 5_000,
      error: expect.stringMatching(/timed out/),
    });
    await f.engine.complete(ep, 'w1', id, { output: 'late' });
    expect(await f.engine.get(ep, id)).toMatchObject({ status: 'TIMED_OUT' });
    expect(await f.engine.counts(ep)).toMatchObject({ failed: 1, inProgress: 0 });
    // A timed-out job may be retried.
    expect((await f.engine.retry(ep, id)).status).toBe('IN_QUEUE');
  });

  it('deletes a job in any state when its ttl (from submission) expires, running ones included: then 404', async () => {
    const ep = endpoint();
    const busy = await running(ep, 'w1', { policy: policy(600_000, 20_000) });
    const queued = await f.engine.submit(submission(ep, { policy: policy(600_000, 10_000) }));
    f.clock.advance(10_000);
    await f.engine.sweep();
    await expect(f.engine.get(ep, queued.id)).rejects.toThrow(NotFoundError);
    expect((await f.engine.get(ep, busy)).status).toBe('IN_PROGRESS');
    expect(await f.engine.take({ endpointId: ep, workerId: 'w2', count: 5, waitMs: 0 })).toEqual([]);
    f.clock.advance(10_000);
    await f.engine.sweep();
    await expect(f.engine.get(ep, busy)).rejects.toThrow(NotFoundError);
    expect(await f.engine.stopRequests(ep, 'w1', 0)).toEqual([busy]);
    await expect(f.engine.complete(ep, 'w1', busy, { output: 'x' })).rejects.toThrow(NotFoundError);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 0, inProgress: 0 });
  });

  it('deletes queued jobs of the default ttl from their queue, each when its own ttl runs out', async () => {
    const ep = endpoint();
    const queueMember = () => f.redis.zscore(f.keys.global('expiry'), indexMember(ep, QUEUE_TTL_ID));
    // Taken and put back (its take hung up): it has its own member from then on, as a re-queued job does.
    const hangUp = new AbortController();
    const parked = f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 60_000, signal: hangUp.signal });
    await parkedOn(f.engine, 1);
    const submitting = f.engine.submit(submission(ep));
    hangUp.abort();
    const putBack = await submitting;
    expect(await parked).toEqual([]);
    expect(await f.engine.get(ep, putBack.id)).toMatchObject({ status: 'IN_QUEUE' });
    const first = await f.engine.submit(submission(ep));
    const longer = await f.engine.submit(submission(ep, { policy: policy(600_000, 2 * DAY) }));
    f.clock.advance(HOUR);
    const second = await f.engine.submit(submission(ep));
    // Nothing is due a moment before the first jobs' ttl, then those two.
    f.clock.advance(DAY - HOUR - 1);
    await f.engine.sweep();
    expect(await f.queued(ep)).toEqual([putBack.id, first.id, longer.id, second.id]);
    f.clock.advance(1);
    await f.engine.sweep();
    for (const id of [putBack.id, first.id]) await expect(f.engine.get(ep, id)).rejects.toThrow(NotFoundError);
    expect(await f.queued(ep)).toEqual([longer.id, second.id]);
    // The job with its own ttl stays at the head; the next of the default ttl is due an hour later.
    f.clock.advance(HOUR - 1);
    await f.engine.sweep();
    expect(await f.queued(ep)).toEqual([longer.id, second.id]);
    f.clock.advance(1);
    await f.engine.sweep();
    await expect(f.engine.get(ep, second.id)).rejects.toThrow(NotFoundError);
    // Left with a job that has its own member only, the queue's member is gone.
    expect(await queueMember()).toBeNull();
    f.clock.advance(DAY - HOUR);
    await f.engine.sweep();
    await expect(f.engine.get(ep, longer.id)).rejects.toThrow(NotFoundError);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 0 });
  });

  it('setTtl moves the deletion time, counted from submission', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    f.clock.advance(30_000);
    await f.engine.setTtl(ep, run.id, 40_000);
    f.clock.advance(9_999);
    await f.engine.sweep();
    expect((await f.engine.get(ep, run.id)).status).toBe('IN_QUEUE');
    f.clock.advance(1);
    await f.engine.sweep();
    await expect(f.engine.get(ep, run.id)).rejects.toThrow(NotFoundError);
    await expect(f.engine.setTtl(ep, run.id, 40_000)).rejects.toThrow(NotFoundError);
    await expect(f.engine.setTtl(ep, 'x', 5)).rejects.toThrow(/^ttl: /);
  });

  it('keeps results 30 min after completion for /run and 1 min for /runsync, then 404 and no retry', async () => {
    const ep = endpoint();
    const run = await running(ep, 'w1');
    await f.engine.complete(ep, 'w1', run, { error: 'x' });
    const sync = await running(ep, 'w1', { sync: true });
    await f.engine.complete(ep, 'w1', sync, { output: 1 });
    f.clock.advance(MINUTE);
    await f.engine.sweep();
    await expect(f.engine.get(ep, sync)).rejects.toThrow(NotFoundError);
    expect((await f.engine.get(ep, run)).status).toBe('FAILED');
    f.clock.advance(29 * MINUTE);
    await f.engine.sweep();
    await expect(f.engine.get(ep, run)).rejects.toThrow(NotFoundError);
    await expect(f.engine.retry(ep, run)).rejects.toThrow(NotFoundError);
  });

  it('re-queues the jobs of a worker silent for 3 intervals (retries + 1), then FAILs them past the limit', async () => {
    const ep = endpoint();
    const id = await running(ep, 'w1');
    f.clock.advance(29_999);
    await f.engine.sweep();
    expect((await f.engine.get(ep, id)).status).toBe('IN_PROGRESS');

    // w2 parks a take; the re-queue wakes it at once.
    const parked = f.engine.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 20_000 });
    f.clock.advance(1);
    await f.engine.sweep();
    expect((await parked).map((job) => job.id)).toEqual([id]);
    expect(await f.engine.get(ep, id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w2', retries: 1 });
    expect(await f.engine.counts(ep)).toMatchObject({ retried: 1 });

    // w3 keeps pinging while w2 goes silent.
    f.clock.advance(20_000);
    await f.engine.heartbeat(ep, 'w3', []);
    f.clock.advance(10_000);
    await f.engine.sweep();
    expect(await f.engine.get(ep, id)).toMatchObject({ status: 'IN_QUEUE', retries: 2 });
    await f.engine.take({ endpointId: ep, workerId: 'w3', count: 1, waitMs: 0 });
    f.clock.advance(30_000);
    await f.engine.sweep();
    const failed = await f.engine.get(ep, id);
    expect(failed).toMatchObject({ status: 'FAILED', retries: 2, workerId: 'w3' });
    expect(failed.error).toMatch(/worker w3 stopped responding.*retried 2 times/);
  });

  it('takes back a job a live worker was given but does not report holding (its take answer was lost)', async () => {
    const ep = endpoint();
    const id = await running(ep, 'w1');
    await f.engine.heartbeat(ep, 'w1', []);
    expect((await f.engine.get(ep, id)).status).toBe('IN_PROGRESS');
    f.clock.advance(25_000);
    await f.engine.heartbeat(ep, 'w1', [id]);
    expect((await f.engine.get(ep, id)).status).toBe('IN_PROGRESS');
    await f.engine.heartbeat(ep, 'w1', []);
    expect(await f.engine.get(ep, id)).toMatchObject({ status: 'IN_QUEUE', retries: 1 });
    expect((await f.engine.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).map((job) => job.id)).toEqual(
      [id],
    );
    // A presence-only heartbeat (as a take records) never takes jobs back.
    f.clock.advance(25_000);
    await f.engine.heartbeat(ep, 'w2');
    expect(await f.engine.get(ep, id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w2' });
  });

  it('keeps a worker that pings alive, and accepts the result of a worker that comes back after a re-queue', async () => {
    const ep = endpoint();
    const id = await running(ep, 'w1');
    for (let i = 0; i < 5; i += 1) {
      f.clock.advance(10_000);
      await f.engine.heartbeat(ep, 'w1', [id]);
      await f.engine.sweep();
    }
    expect((await f.engine.get(ep, id)).status).toBe('IN_PROGRESS');
    f.clock.advance(30_000);
    await f.engine.sweep();
    expect((await f.engine.get(ep, id)).status).toBe('IN_QUEUE');
    await f.engine.complete(ep, 'w1', id, { output: 'finished anyway' });
    expect(await f.engine.get(ep, id)).toMatchObject({
      status: 'COMPLETED',
      output: 'finished anyway',
      workerId: 'w1',
    });
    // Its stale queue entry is dropped, not handed out.
    expect(await f.engine.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).toEqual([]);
  });
});
