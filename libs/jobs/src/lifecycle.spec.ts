import { bullPrefix } from '@runplane/queue';
import { NotFoundError, ValidationError } from '@runplane/contracts';
import { startEngine, submission, type EngineFixture } from './__fixtures__/engine';
import { MAX_STREAM_CHUNK_BYTES } from './stream-chunks';

describe('RedisJobEngine: streams, cancel, retry, purge, counts, webhooks, events', () => {
  let f: EngineFixture;
  let n = 0;
  const endpoint = () => `lc${++n}`;

  beforeAll(() => {
    f = startEngine('jobs-lifecycle');
  });
  afterAll(() => f.close());

  async function running(ep: string, worker = 'w1', overrides = {}) {
    const run = await f.engine.submit(submission(ep, overrides));
    const [taken] = await f.engine.take({ endpointId: ep, workerId: worker, count: 1, waitMs: 0 });
    expect(taken?.id).toBe(run.id);
    return run.id;
  }

  it('hands each stream chunk out once, waking a parked reader, and ends with a terminal status', async () => {
    const ep = endpoint();
    const id = await running(ep);
    const parked = f.engine.readStream(ep, id, 20_000);
    await f.engine.appendStream(ep, 'w1', id, 'a');
    expect(await parked).toEqual({ status: 'IN_PROGRESS', stream: [{ output: 'a' }] });
    await f.engine.appendStream(ep, 'w1', id, { token: 'b' });
    await f.engine.appendStream(ep, 'w1', id, ['c']);
    expect(await f.engine.readStream(ep, id, 0)).toEqual({
      status: 'IN_PROGRESS',
      stream: [{ output: { token: 'b' } }, { output: ['c'] }],
    });
    expect(await f.engine.readStream(ep, id, 20)).toEqual({ status: 'IN_PROGRESS', stream: [] });
    await f.engine.appendStream(ep, 'w1', id, 'last');
    await f.engine.complete(ep, 'w1', id, { output: [] });
    expect(await f.engine.readStream(ep, id, 20_000)).toEqual({ status: 'COMPLETED', stream: [{ output: 'last' }] });
    expect(await f.engine.readStream(ep, id, 20_000)).toEqual({ status: 'COMPLETED', stream: [] });
    await expect(f.engine.readStream(ep, 'nope-u1', 0)).rejects.toThrow(NotFoundError);
  });

  it('splits outputs over 1 MB into chunks of at most 1 MB that join back to the original', async () => {
    const ep = endpoint();
    const id = await running(ep);
    const big = 'é'.repeat(MAX_STREAM_CHUNK_BYTES); // 2 MB of UTF-8
    await f.engine.appendStream(ep, 'w1', id, big);
    const { stream } = await f.engine.readStream(ep, id, 0);
    expect(stream.length).toBeGreaterThanOrEqual(2);
    for (const chunk of stream)
      expect(Buffer.byteLength(JSON.stringify(chunk.output))).toBeLessThanOrEqual(MAX_STREAM_CHUNK_BYTES);
    expect(stream.map((chunk) => chunk.output).join('')).toBe(big);
  });

  it('cancels a queued job out of the queue, so no worker ever gets it', async () => {
    const ep = endpoint();
    const run = await f.engine.submit(submission(ep));
    expect(await f.engine.cancel(ep, run.id)).toMatchObject({ id: run.id, status: 'CANCELLED' });
    expect(await f.engine.take({ endpointId: ep, workerId: 'w1', count: 5, waitMs: 0 })).toEqual([]);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 0, inProgress: 0 });
    // Cancelling again answers the terminal record.
    expect(await f.engine.cancel(ep, run.id)).toMatchObject({ status: 'CANCELLED' });
  });

  it('cancels a running job and tells its worker through job-stop, waking a parked stop poll', async () => {
    const ep = endpoint();
    const id = await running(ep);
    const stops = f.engine.stopRequests(ep, 'w1', 20_000);
    expect(await f.engine.cancel(ep, id)).toMatchObject({ status: 'CANCELLED', workerId: 'w1' });
    expect(await stops).toEqual([id]);
    expect(await f.engine.stopRequests(ep, 'w1', 20)).toEqual([]);
    await f.engine.complete(ep, 'w1', id, { output: 'too late' });
    expect(await f.engine.get(ep, id)).not.toHaveProperty('output');
  });

  it('retries only FAILED or TIMED_OUT jobs, under the same id with the original input and no old output', async () => {
    const ep = endpoint();
    const id = await running(ep, 'w1', { input: { n: 7 } });
    await expect(f.engine.retry(ep, id)).rejects.toThrow(ValidationError);
    await f.engine.complete(ep, 'w1', id, { output: 'partial', error: 'boom' });
    expect(await f.engine.get(ep, id)).toMatchObject({ status: 'FAILED', output: 'partial', error: 'boom' });
    expect(await f.engine.retry(ep, id)).toEqual({ id, status: 'IN_QUEUE', retries: 0 });
    expect(await f.engine.take({ endpointId: ep, workerId: 'w2', count: 1, waitMs: 0 })).toEqual([
      { id, input: { n: 7 } },
    ]);
    await f.engine.complete(ep, 'w2', id, { output: 'ok' });
    await expect(f.engine.retry(ep, id)).rejects.toThrow(/only FAILED or TIMED_OUT/);
    expect(await f.engine.counts(ep)).toMatchObject({ completed: 1, failed: 1, retried: 1 });
    await expect(f.engine.retry(ep, 'nope-u1')).rejects.toThrow(NotFoundError);
  });

  it('purges queued jobs only; running ones go on', async () => {
    const ep = endpoint();
    const runningId = await running(ep);
    const queued = [await f.engine.submit(submission(ep)), await f.engine.submit(submission(ep))];
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 2, inProgress: 1 });
    expect(await f.engine.purgeQueue(ep)).toBe(2);
    expect(await f.engine.take({ endpointId: ep, workerId: 'w2', count: 5, waitMs: 0 })).toEqual([]);
    for (const run of queued) expect((await f.engine.get(ep, run.id)).status).toBe('CANCELLED');
    await f.engine.complete(ep, 'w1', runningId, { output: 'fine' });
    expect(await f.engine.get(ep, runningId)).toMatchObject({ status: 'COMPLETED', output: 'fine' });
    expect(await f.engine.counts(ep)).toEqual({ completed: 1, failed: 0, inProgress: 0, inQueue: 0, retried: 0 });
  });

  it('lists recent jobs newest first and reports idle and running workers', async () => {
    const ep = endpoint();
    const first = await running(ep, 'busy');
    f.clock.advance(1);
    const second = await f.engine.submit(submission(ep));
    await f.engine.heartbeat(ep, 'idle', []);
    expect((await f.engine.recent(ep, 10)).map((job) => job.id)).toEqual([second.id, first]);
    expect(await f.engine.recent(ep, 1)).toHaveLength(1);
    expect(await f.engine.workers(ep)).toEqual({ idle: ['idle'], running: ['busy'] });
    expect(await f.engine.scalingQueue(ep)).toBe(1);
    const low = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: true };
    await f.engine.submit(submission(ep, { policy: low }));
    expect(await f.engine.scalingQueue(ep)).toBe(1);
    expect(await f.engine.counts(ep)).toMatchObject({ inQueue: 2 });
  });

  it('queues webhook.deliver with the /status record when a job with a webhook ends', async () => {
    const ep = endpoint();
    const id = await running(ep, 'w1', { webhook: 'https://example.com/hook' });
    await f.engine.complete(ep, 'w1', id, { output: { ok: true } });
    const record = await f.engine.get(ep, id);
    const doneAt = await f.redis.hget(f.keys.job(ep, id), 'doneAt');
    const stored = await f.redis.hget(`${bullPrefix(f.prefix)}:webhooks:${id}-${doneAt}`, 'data');
    expect(JSON.parse(stored ?? '{}').payload).toEqual({
      endpointId: ep,
      jobId: id,
      url: 'https://example.com/hook',
      record,
      accountId: 'acct-1',
    });
    expect(f.errors).toEqual([]);
  });

  it('publishes queue, start and finish events for the autoscaler and billing', async () => {
    const ep = endpoint();
    const low = { executionTimeoutMs: 600_000, ttlMs: 86_400_000, lowPriority: true };
    const id = await running(ep, 'w9', { policy: low });
    await f.engine.complete(ep, 'w9', id, { output: 1, stopPod: true });
    const entries = await f.redis.xrange(f.keys.events, '-', '+');
    const mine = entries
      .map(([, fields]) =>
        Object.fromEntries(
          fields.reduce<string[][]>((acc, v, i) => (i % 2 ? acc : [...acc, [v, fields[i + 1] ?? '']]), []),
        ),
      )
      .filter((event) => event['endpointId'] === ep);
    expect(mine.map((event) => event['type'])).toEqual(['job.queued', 'job.started', 'worker.refresh', 'job.finished']);
    expect(mine[0]).toMatchObject({ jobId: id, lowPriority: '1' });
    expect(mine[3]).toMatchObject({ jobId: id, status: 'COMPLETED', workerId: 'w9' });
  });

  it('has a worker recycled that does not ask for the stop of its cancelled or timed-out job (no job-stop channel)', async () => {
    const ep = endpoint();
    const unheeded = await running(ep, 'old-sdk');
    const heeded = await running(ep, 'new-sdk');
    await f.engine.cancel(ep, unheeded);
    await f.engine.cancel(ep, heeded);
    // The worker with the job-stop channel asks for its stops; the other one never does, and goes on pinging.
    expect(await f.engine.stopRequests(ep, 'new-sdk', 0)).toEqual([heeded]);
    const events = async () =>
      (await f.redis.xrange(f.keys.events, '-', '+'))
        .map(([, fields]) =>
          Object.fromEntries(
            fields.reduce<string[][]>((acc, v, i) => (i % 2 ? acc : [...acc, [v, fields[i + 1] ?? '']]), []),
          ),
        )
        .filter((event) => event['endpointId'] === ep && event['type'] === 'worker.refresh');
    const grace = 3 * 10_000; // 3 heartbeat intervals
    f.clock.advance(grace - 1_000);
    await f.engine.sweep();
    expect(await events()).toEqual([]);
    f.clock.advance(2_000);
    await f.engine.heartbeat(ep, 'old-sdk', [unheeded]);
    await f.engine.heartbeat(ep, 'new-sdk', []);
    await f.engine.sweep();
    expect(await events()).toEqual([
      {
        type: 'worker.refresh',
        endpointId: ep,
        workerId: 'old-sdk',
        reason: `did not stop job ${unheeded} when told to (no job-stop channel)`,
      },
    ]);
    // Once only: its stop requests are forgotten with it.
    await f.engine.sweep();
    expect(await events()).toHaveLength(1);
    expect(await f.engine.stopRequests(ep, 'old-sdk', 0)).toEqual([]);
  });
});
