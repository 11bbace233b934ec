import { NotFoundError, ValidationError } from '@runplane/contracts';
import { normalizePrefix } from '@runplane/queue';
import { startEngine, submission, type EngineFixture } from './__fixtures__/engine';

describe('RedisJobEngine: client and worker operations', () => {
  let f: EngineFixture;
  let n = 0;
  /** A fresh endpoint id per test keeps queues and counts apart. */
  const endpoint = () => `ep${++n}`;

  beforeAll(() => {
    f = startEngine('jobs-engine');
  });
  afterAll(() => f.close());

  it('submits, hands the job to a worker with its extra keys, and records the result', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep, { extra: { s3Config: { bucketName: 'b' } } }));
    expect(run).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}-u1$/), status: 'IN_QUEUE', retries: 0 });
    expect(await f.engine.get(ep, run.id)).toEqual({ id: run.id, status: 'IN_QUEUE', retries: 0 });

    f.clock.advance(120);
    const taken = await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    expect(taken).toEqual([{ id: run.id, input: { prompt: 'hello' }, s3Config: { bucketName: 'b' } }]);
    expect(Object.keys(taken[0] ?? {})).toEqual(['id', 'input', 's3Config']);
    f.clock.advance(300);
    expect(await f.engine.get(ep, run.id)).toEqual({
      id: run.id, status: 'IN_PROGRESS', delayTime: 120, executionTime: 300, workerId: 'w1', retries: 0,
    }); // prettier-ignore

    f.clock.advance(200);
    await f.engine.complete(ep, 'w1', run.id, { output: { text: 'hi' } });
    const done = await f.engine.get(ep, run.id);
    expect(done).toEqual({
      id: run.id, status: 'COMPLETED', delayTime: 120, executionTime: 500, output: { text: 'hi' }, workerId: 'w1', retries: 0,
    }); // prettier-ignore
    expect(Object.keys(done)).toEqual(['id', 'status', 'delayTime', 'executionTime', 'output', 'workerId', 'retries']);
    expect(await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 })).toEqual([]);
  });

  it('gives sync ids and refuses out-of-range policies naming the field', async () => {
    const ep = endpoint();
    expect((await f.engine.submit(submission(ep, { sync: true }))).id).toMatch(/^sync-[0-9a-f-]{36}-u1$/);
    const policy = { executionTimeoutMs: 4_999, ttlMs: 86_400_000, lowPriority: false };
    await expect(f.engine.submit(submission(ep, { policy }))).rejects.toThrow(/^policy\.executionTimeout: /);
    const ttl = { executionTimeoutMs: 600_000, ttlMs: 9_999, lowPriority: false };
    await expect(f.engine.submit(submission(ep, { policy: ttl }))).rejects.toThrow(ValidationError);
  });

  it('answers NotFound for unknown jobs and for another endpoint’s job', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    await expect(f.engine.get(ep, 'nope-u1')).rejects.toThrow(NotFoundError);
    await expect(f.engine.get(endpoint(), run.id)).rejects.toThrow(NotFoundError);
    await expect(f.engine.complete(ep, 'w', 'nope-u1', { output: 1 })).rejects.toThrow(NotFoundError);
    await expect(f.engine.cancel(ep, 'nope-u1')).rejects.toThrow(NotFoundError);
  });

  it('records a failure with its error as a string, whatever the worker sent', async () => {
    const ep = endpoint();
    const a = await f.engine.submit(submission(ep));
    const b = await f.engine.submit(submission(ep));
    await f.engine.take({ endpointId: ep, workerId: 'w', count: 2, waitMs: 0 });
    await f.engine.complete(ep, 'w', a.id, { error: 'handler: boom' });
    await f.engine.complete(ep, 'w', b.id, { error: { error_type: 'ValueError' } });
    expect(await f.engine.get(ep, a.id)).toMatchObject({ status: 'FAILED', error: 'handler: boom' });
    expect(await f.engine.get(ep, b.id)).toMatchObject({ status: 'FAILED', error: '{"error_type":"ValueError"}' });
  });

  it('wakes a parked take as soon as a job arrives, not on a poll interval', async () => {
    const ep = endpoint();
    // A parked take tries again only when woken: had the submission not woken it, it would end empty after 20 s.
    const parked = f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 20_000 });
    await new Promise<void>((resolve) => setImmediate(resolve));
    const run = await f.engine.submit(submission(ep));
    const taken = await parked;
    expect(taken.map((job) => job.id)).toEqual([run.id]);
  });

  it('wakes one parked taker per job, across several parked workers', async () => {
    const ep = endpoint();
    const takes = [1, 2, 3].map((i) => f.engine.take({ endpointId: ep, workerId: `w${i}`, count: 1, waitMs: 500 }));
    const runs = [await f.engine.submit(submission(ep)), await f.engine.submit(submission(ep))];
    const first = await Promise.race(takes);
    expect(first).toHaveLength(1);
    const settled = await Promise.all(takes);
    const ids = settled
      .flat()
      .map((job) => job.id)
      .sort();
    expect(ids).toEqual(runs.map((r) => r.id).sort());
    expect(settled.filter((jobs) => jobs.length === 0)).toHaveLength(1);
  });

  it('ends a parked take on abort and after its wait, empty', async () => {
    const ep = endpoint();
    const controller = new AbortController();
    const parked = f.engine.take({
      endpointId: ep,
      workerId: 'w1',
      count: 1,
      waitMs: 30_000,
      signal: controller.signal,
    });
    controller.abort();
    expect(await parked).toEqual([]);
    expect(await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 50 })).toEqual([]);
    expect(f.engine.parked()).toBe(0);
  });

  it('takes a batch of up to N jobs in submission order', async () => {
    const ep = endpoint();
    const runs = [];
    for (let i = 0; i < 5; i += 1) runs.push(await f.engine.submit(submission(ep, { input: { i } })));
    const batch = await f.engine.take({ endpointId: ep, workerId: 'w1', count: 3, waitMs: 0 });
    expect(batch.map((job) => job.input)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect(
      (await f.engine.take({ endpointId: ep, workerId: 'w2', count: 10, waitMs: 0 })).map((job) => job.id),
    ).toEqual([runs[3]?.id, runs[4]?.id]);
  });

  it('makes job-done idempotent and ignores progress after the final result (the progress race)', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.complete(ep, 'w1', run.id, { status: 'IN_PROGRESS', output: '50%' });
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', output: '50%' });
    await f.engine.complete(ep, 'w1', run.id, { output: 'final' });
    await f.engine.complete(ep, 'w1', run.id, { status: 'IN_PROGRESS', output: '99%' });
    await f.engine.complete(ep, 'w1', run.id, { error: 'late duplicate' });
    await f.engine.complete(ep, 'w1', run.id, { output: 'final' });
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'COMPLETED', output: 'final' });
    expect(await f.engine.counts(ep)).toMatchObject({ completed: 1, failed: 0 });
  });

  it('ignores results from a worker that does not hold the job', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.complete(ep, 'intruder', run.id, { output: 'forged' });
    expect(await f.engine.get(ep, run.id)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w1' });
  });

  it('waitFor returns the finished record at once when the job ends, or the current one after the wait', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    expect(await f.engine.waitFor(ep, run.id, 30)).toMatchObject({ status: 'IN_QUEUE' });
    // The wait outlasts this test's own timeout, so only the job's end can return it.
    const waiting = f.engine.waitFor(ep, run.id, 600_000);
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    await f.engine.complete(ep, 'w1', run.id, { output: 42 });
    expect(await waiting).toMatchObject({ status: 'COMPLETED', output: 42 });
  }, 20_000);

  it('idempotency key: the same key returns the first job, another key a new one', async () => {
    const ep = endpoint();
    const first = await f.engine.submit(submission(ep, { idempotencyKey: 'k1' }));
    const again = await f.engine.submit(submission(ep, { idempotencyKey: 'k1', input: { other: true } }));
    const other = await f.engine.submit(submission(ep, { idempotencyKey: 'k2' }));
    expect(again.id).toBe(first.id);
    expect(other.id).not.toBe(first.id);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 2 });
    f.clock.advance(24 * 3_600_000);
    const later = await f.engine.submit(submission(ep, { idempotencyKey: 'k1' }));
    expect(later.id).not.toBe(first.id);
  });

  it('writes a take heartbeat at most once per tenth of the ping interval; pings always write', async () => {
    const ep = endpoint();
    const member = `${ep}/w1`;
    const lastSeen = async () => Number(await f.redis.zscore(`${normalizePrefix(f.prefix)}jobs:workers`, member));
    const start = f.clock.now();
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    expect(await lastSeen()).toBe(start);
    f.clock.advance(999);
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    expect(await lastSeen()).toBe(start);
    f.clock.advance(1);
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    expect(await lastSeen()).toBe(start + 1000);
    f.clock.advance(10);
    await f.engine.heartbeat(ep, 'w1', []);
    expect(await lastSeen()).toBe(start + 1010);
  });

  it('answers a caller waiting on this engine with the record its job-done finished', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep, { sync: true }));
    await f.engine.take({ endpointId: ep, workerId: 'w1', count: 1, waitMs: 0 });
    const waiting = f.engine.waitFor(ep, run.id, 60_000);
    while (f.engine.parked() === 0) await new Promise((resolve) => setImmediate(resolve));
    f.clock.advance(50);
    await f.engine.complete(ep, 'w1', run.id, { output: { text: 'done' } });
    const record = await waiting;
    expect(record).toEqual(await f.engine.get(ep, run.id));
    expect(record).toMatchObject({ id: run.id, status: 'COMPLETED', output: { text: 'done' }, executionTime: 50 });
  });
});
