import { Queue } from 'bullmq';
import { z } from 'zod';
import { cleanupRedisPrefix, testRedisPrefix } from '@runplane/testing';
import {
  createQueue,
  createRedis,
  createWorker,
  bullPrefix,
  defineJobCatalog,
  JobCatalogError,
  UnrecoverableError,
  type JobContext,
  type Redis,
  type TypedWorker,
} from './index';

const REDIS_URL = 'redis://127.0.0.1:6379';

const catalog = defineJobCatalog({
  'test.echo': { queue: 'echo', schema: z.object({ text: z.string(), times: z.coerce.number().int() }), attempts: 1 },
  'test.flaky': {
    queue: 'echo',
    schema: z.object({ failTimes: z.number() }),
    attempts: 3,
    backoff: { type: 'fixed', delayMs: 10 },
  },
  'test.slow': { queue: 'echo', schema: z.object({}), attempts: 1, timeoutMs: 50 },
  'other.job': { queue: 'other', schema: z.object({ id: z.string() }), attempts: 1 },
});

/** Resolves with the next settled job of the given name, from the worker's own events. */
function nextOutcome(
  worker: TypedWorker,
  name: string,
): Promise<{ state: 'completed' | 'failed'; error?: Error; attemptsMade: number }> {
  return new Promise((resolve) => {
    const onCompleted = (job: { name: string; attemptsMade: number }) => {
      if (job.name === name) resolve({ state: 'completed', attemptsMade: job.attemptsMade });
    };
    const onFailed = (
      job: { name: string; attemptsMade: number; opts: { attempts?: number } } | undefined,
      error: Error,
    ) => {
      if (!job || job.name !== name) return;
      if (job.attemptsMade < (job.opts.attempts ?? 1) && !(error instanceof UnrecoverableError)) return;
      resolve({ state: 'failed', error, attemptsMade: job.attemptsMade });
    };
    worker.worker.on('completed', onCompleted);
    worker.worker.on('failed', onFailed);
  });
}

describe('defineJobCatalog', () => {
  it.each([
    ['NoDot', { queue: 'q', schema: z.object({}), attempts: 1 }],
    ['a.b', { queue: 'Bad Queue', schema: z.object({}), attempts: 1 }],
    ['a.b', { queue: 'q', schema: z.object({}), attempts: 0 }],
    ['a.b', { queue: 'q', schema: z.object({}), attempts: 1, timeoutMs: 0 }],
  ])('rejects a bad entry %s', (name, definition) => {
    expect(() => defineJobCatalog({ [name]: definition })).toThrow(JobCatalogError);
  });
});

describe('createQueue / createWorker', () => {
  const prefix = testRedisPrefix('queue-catalog');
  let redis: Redis;
  const workers: TypedWorker[] = [];
  const seen: { name: string; data: unknown; context: Omit<JobContext, 'signal'> }[] = [];
  let flakyFailures = 0;
  let aborted = false;

  const handlers = {
    'test.echo': async (data: { text: string; times: number }, context: JobContext) => {
      seen.push({ name: 'test.echo', data, context: { ...context, signal: undefined } as never });
      return data.text.repeat(data.times);
    },
    'test.flaky': async (data: { failTimes: number }, context: JobContext) => {
      seen.push({ name: 'test.flaky', data, context: { ...context, signal: undefined } as never });
      if (flakyFailures < data.failTimes) {
        flakyFailures += 1;
        throw new Error('transient');
      }
    },
    'test.slow': (_data: Record<string, never>, context: JobContext) =>
      new Promise((_, reject) =>
        context.signal.addEventListener('abort', () => {
          aborted = true;
          reject(new Error('aborted'));
        }),
      ),
  };

  beforeAll(() => {
    redis = createRedis(REDIS_URL);
  });
  afterEach(() => {
    seen.length = 0;
    flakyFailures = 0;
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await cleanupRedisPrefix(redis, bullPrefix(prefix));
    await redis.quit();
  });

  function startWorker(): TypedWorker {
    const worker = createWorker(catalog, 'echo', handlers, { redis, prefix });
    workers.push(worker);
    return worker;
  }

  it('fails at startup when a job of the queue has no handler or a handler has no job', () => {
    const { 'test.slow': _omitted, ...missing } = handlers;
    expect(() => createWorker(catalog, 'echo', missing as typeof handlers, { redis, prefix })).toThrow(
      /no handler for test\.slow/,
    );
    const extra = { ...handlers, 'other.job': async () => undefined };
    expect(() => createWorker(catalog, 'echo', extra, { redis, prefix })).toThrow(/not on this queue: other\.job/);
  });

  it('refuses a Redis client with a keyPrefix', () => {
    const prefixed = createRedis(REDIS_URL, { keyPrefix: prefix });
    try {
      expect(() => createQueue(catalog, 'echo', { redis: prefixed, prefix })).toThrow(/keyPrefix/);
    } finally {
      prefixed.disconnect();
    }
  });

  it('delivers a validated payload to its handler with parsed data and attempt info', async () => {
    const queue = createQueue(catalog, 'echo', { redis, prefix });
    const worker = startWorker();
    const outcome = nextOutcome(worker, 'test.echo');
    const { id } = await queue.add('test.echo', { text: 'ab', times: '2' }, { jobId: 'echo-1' });
    expect(id).toBe('echo-1');
    expect(await outcome).toEqual({ state: 'completed', attemptsMade: 1 });
    expect(seen).toEqual([
      {
        name: 'test.echo',
        data: { text: 'ab', times: 2 },
        context: expect.objectContaining({
          id: 'echo-1',
          name: 'test.echo',
          attempt: 1,
          maxAttempts: 1,
          isLastAttempt: true,
        }),
      },
    ]);
    await queue.close();
  });

  it('rejects an invalid payload at the producer and enqueues nothing', async () => {
    const queue = createQueue(catalog, 'other', { redis, prefix });
    await expect(queue.add('other.job', { id: 42 } as unknown as { id: string })).rejects.toThrow(z.ZodError);
    await expect(
      (queue.add as (name: string, payload: unknown) => Promise<unknown>)('test.echo', { text: 'x', times: 1 }),
    ).rejects.toThrow(/does not run on queue "other"/);
    expect(await queue.pendingCount()).toBe(0);
    await queue.close();
  });

  it('retries with the catalog policy and reports the attempt number', async () => {
    const queue = createQueue(catalog, 'echo', { redis, prefix });
    const worker = workers[0] ?? startWorker();
    const outcome = nextOutcome(worker, 'test.flaky');
    await queue.add('test.flaky', { failTimes: 2 });
    expect(await outcome).toEqual({ state: 'completed', attemptsMade: 3 });
    expect(seen.map((s) => [s.context.attempt, s.context.isLastAttempt])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    await queue.close();
  });

  it('fails for good, without retrying, when a stored payload does not match its schema', async () => {
    const raw = new Queue('echo', { connection: redis, prefix: bullPrefix(prefix) });
    const worker = workers[0] ?? startWorker();
    const outcome = nextOutcome(worker, 'test.flaky');
    await raw.add('test.flaky', { payload: { failTimes: 'lots' } }, { attempts: 3 });
    const result = await outcome;
    expect(result.state).toBe('failed');
    expect(result.error).toBeInstanceOf(UnrecoverableError);
    expect(result.error?.message).toMatch(/Invalid payload for test\.flaky/);
    expect(result.attemptsMade).toBe(1);
    expect(seen).toEqual([]);
    await raw.close();
  });

  it('retries a failed job by id, which adding a job of the same id does not', async () => {
    const queue = createQueue(catalog, 'echo', { redis, prefix });
    const worker = workers[0] ?? startWorker();
    // Fails on all 3 tries of its first run; succeeds once retried.
    const failed = nextOutcome(worker, 'test.flaky');
    await queue.add('test.flaky', { failTimes: 3 }, { jobId: 'flaky-by-id' });
    expect((await failed).state).toBe('failed');
    await queue.add('test.flaky', { failTimes: 3 }, { jobId: 'flaky-by-id' });
    expect(await queue.pendingCount()).toBe(0);
    const completed = nextOutcome(worker, 'test.flaky');
    expect(await queue.retryFailed('flaky-by-id')).toBe(true);
    expect((await completed).state).toBe('completed');
    expect(seen.filter((entry) => entry.name === 'test.flaky')).toHaveLength(4);
    expect(await queue.retryFailed('flaky-by-id')).toBe(false);
    expect(await queue.retryFailed('no-such-job')).toBe(false);
    await queue.close();
  });

  it('aborts a job that exceeds its timeout', async () => {
    const queue = createQueue(catalog, 'echo', { redis, prefix });
    const worker = workers[0] ?? startWorker();
    const outcome = nextOutcome(worker, 'test.slow');
    await queue.add('test.slow', {});
    const result = await outcome;
    expect(result.state).toBe('failed');
    expect(result.error?.message).toMatch(/timed out after 50 ms/);
    expect(aborted).toBe(true);
    await queue.close();
  });
});
