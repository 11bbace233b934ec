import { pollUntil } from '@runplane/testing';
import { FakePlatform, type RecordedRequest } from './__fixtures__/protocol-server';
import { runWorker, type JobHandler, type WorkerOptions } from './index';

const TOKEN = 'wkr_test-token';

/** Env exactly as the platform injects it into a worker (templates with their own query string). */
function platformEnv(base: string, workerId = 'w1'): Record<string, string> {
  return {
    RUNPOD_WEBHOOK_GET_JOB: `${base}/v2/ep1/job-take/$ID?gpu=NVIDIA+A100`,
    RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/v2/ep1/job-done/$RUNPOD_POD_ID/$ID?gpu=NVIDIA+A100`,
    RUNPOD_WEBHOOK_POST_STREAM: `${base}/v2/ep1/job-stream/$RUNPOD_POD_ID/$ID?gpu=NVIDIA+A100`,
    RUNPOD_WEBHOOK_PING: `${base}/v2/ep1/ping/$RUNPOD_POD_ID?gpu=NVIDIA+A100`,
    RUNPOD_AI_API_KEY: TOKEN,
    RUNPOD_POD_ID: workerId,
    RUNPOD_PING_INTERVAL: '1000',
  };
}

describe('runWorker against a real HTTP platform', () => {
  let platform: FakePlatform;
  let controller: AbortController;
  let running: Promise<void> | undefined;
  const logs: string[] = [];

  beforeEach(async () => {
    platform = await new FakePlatform().start();
    controller = new AbortController();
    logs.length = 0;
  });
  afterEach(async () => {
    controller.abort();
    await running;
    running = undefined;
    await platform.close();
  });

  function start(handler: JobHandler, options: Partial<WorkerOptions> = {}): void {
    running = runWorker({
      handler,
      env: platformEnv(platform.url),
      signal: controller.signal,
      log: (m) => logs.push(m),
      ...options,
    });
  }

  const doneFor = (jobId: string): Promise<RecordedRequest> =>
    pollUntil(
      () => platform.on('job-done').find((r) => r.path.endsWith(`/${jobId}`) && !r.body.includes('IN_PROGRESS')),
      {
        description: `job-done for ${jobId}`,
      },
    );

  it('long-polls job-take with RunPod headers and query, and posts the output to job-done', async () => {
    const seen: unknown[] = [];
    start(async (job) => {
      seen.push(job);
      return { echoed: job.input };
    });
    await pollUntil(() => platform.parked === 1, { description: 'a parked take' });
    const take = platform.on('job-take')[0] as RecordedRequest;
    expect(take.path).toBe('/v2/ep1/job-take/w1');
    expect(take.query.get('gpu')).toBe('NVIDIA A100');
    expect(take.query.get('job_in_progress')).toBe('0');
    expect(take.headers.authorization).toBe(TOKEN);

    platform.push({ id: 'job-1', input: { text: 'hi' }, s3Config: { bucketName: 'b' } });
    const done = await doneFor('job-1');
    expect(seen).toEqual([{ id: 'job-1', input: { text: 'hi' }, s3Config: { bucketName: 'b' } }]);
    expect(done.method).toBe('POST');
    expect(done.path).toBe('/v2/ep1/job-done/w1/job-1');
    expect(done.query.get('isStream')).toBe('false');
    expect(done.query.get('gpu')).toBe('NVIDIA A100');
    expect(done.headers.authorization).toBe(TOKEN);
    expect(done.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(done.headers['x-request-id']).toBe('job-1');
    expect(JSON.parse(done.body)).toEqual({ output: { echoed: { text: 'hi' } } });
  });

  it('takes batches when several slots are free, runs them concurrently and follows the concurrency modifier', async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    start(
      async (job) => {
        started.push(job.id);
        await gate;
        return job.id;
      },
      { concurrency: () => 3 },
    );
    await pollUntil(() => platform.parked === 1);
    const batch = platform.on('job-take-batch')[0] as RecordedRequest;
    expect(batch.path).toBe('/v2/ep1/job-take-batch/w1');
    expect(batch.query.get('batch_size')).toBe('3');
    expect(batch.query.get('job_in_progress')).toBe('0');
    platform.push({ id: 'a', input: {} }, { id: 'b', input: {} }, { id: 'c', input: {} });
    await pollUntil(() => started.length === 3, { description: 'three jobs running at once' });
    expect(platform.on('job-take').length).toBe(0);
    release();
    for (const id of ['a', 'b', 'c']) expect(JSON.parse((await doneFor(id)).body)).toEqual({ output: id });
  });

  it('asks for one job with job_in_progress=1 while another runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    start(async () => gate, { concurrency: 2 });
    await pollUntil(() => platform.parked === 1);
    platform.push({ id: 'a', input: {} });
    const single = await pollUntil(() => platform.on('job-take').at(-1));
    expect(single.query.get('job_in_progress')).toBe('1');
    release();
    await doneFor('a');
  });

  it('maps handler results like RunPod: error and refresh_worker keys, thrown errors as a JSON string report', async () => {
    start(async (job) => {
      if (job.id === 'throws') throw new TypeError('boom');
      if (job.id === 'empty') return {};
      return { partial: 1, error: { code: 7 }, refresh_worker: true };
    });
    platform.push({ id: 'mapped', input: {} }, { id: 'throws', input: {} }, { id: 'empty', input: {} });
    expect(JSON.parse((await doneFor('mapped')).body)).toEqual({
      output: { partial: 1 },
      error: '{"code":7}',
      stopPod: true,
    });
    const thrown = JSON.parse(JSON.parse((await doneFor('throws')).body).error as string);
    expect(thrown).toMatchObject({ error_type: 'TypeError', error_message: 'boom', worker_id: 'w1' });
    expect(thrown.error_traceback).toContain('boom');
    expect(JSON.parse((await doneFor('empty')).body)).toEqual({});
  });

  it('streams each yield to job-stream and ends with job-done isStream=true', async () => {
    start(async function* (job) {
      yield { token: 'a' };
      yield 'b';
      if (job.id === 'bad') yield { error: 'model exploded' };
      yield 'never sent for bad';
    });
    platform.push({ id: 's1', input: {} });
    const done = await doneFor('s1');
    const chunks = platform.on('job-stream').filter((r) => r.path.endsWith('/s1'));
    expect(chunks.map((r) => r.path)).toEqual(Array(3).fill('/v2/ep1/job-stream/w1/s1'));
    expect(chunks.map((r) => JSON.parse(r.body))).toEqual([
      { output: { token: 'a' } },
      { output: 'b' },
      { output: 'never sent for bad' },
    ]);
    expect(chunks[0]?.query.get('isStream')).toBe('false');
    expect(done.query.get('isStream')).toBe('true');
    expect(JSON.parse(done.body)).toEqual({ output: [] });

    platform.push({ id: 'bad', input: {} });
    const failed = await doneFor('bad');
    expect(JSON.parse(failed.body)).toEqual({ error: 'model exploded' });
    expect(platform.on('job-stream').filter((r) => r.path.endsWith('/bad'))).toHaveLength(2);
  });

  it('sends every chunk again in the final job-done with returnAggregateStream', async () => {
    start(
      async function* () {
        yield 1;
        yield 2;
      },
      { returnAggregateStream: true },
    );
    platform.push({ id: 'agg', input: {} });
    expect(JSON.parse((await doneFor('agg')).body)).toEqual({ output: [1, 2] });
  });

  it('posts progress updates to job-done before the result', async () => {
    start(async (_job, context) => {
      await context.progress({ percent: 50 });
      return 'finished';
    });
    platform.push({ id: 'p1', input: {} });
    await doneFor('p1');
    const posts = platform.on('job-done').map((r) => [r.query.get('isStream'), JSON.parse(r.body)]);
    expect(posts).toEqual([
      ['false', { status: 'IN_PROGRESS', output: { percent: 50 } }],
      ['false', { output: 'finished' }],
    ]);
  });

  it('pings at once and every interval with the running job ids and runpod_version', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    start(async () => gate);
    const first = await pollUntil(() => platform.on('ping')[0]);
    expect(first.path).toBe('/v2/ep1/ping/w1');
    expect(first.headers.authorization).toBe(TOKEN);
    expect(first.query.get('job_id')).toBeNull();
    expect(first.query.get('runpod_version')).toMatch(/^\d+\.\d+\.\d+$/);
    platform.push({ id: 'held', input: {} });
    const busy = await pollUntil(() => platform.on('ping').find((r) => r.query.get('job_id') === 'held'), {
      timeoutMs: 3000,
    });
    expect(busy.at - first.at).toBeGreaterThanOrEqual(900);
    release();
    await doneFor('held');
  });

  it('aborts a job named on job-stop, sends no result for it, and frees its slot', async () => {
    let aborted = false;
    start(async (job, context) => {
      if (job.id !== 'long') return 'quick';
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
      aborted = true;
      return 'late result';
    });
    platform.push({ id: 'long', input: {} });
    const stopPoll = await pollUntil(() => platform.on('job-stop')[0], { description: 'a job-stop long-poll' });
    expect(stopPoll.path).toBe('/v2/ep1/job-stop/w1');
    expect(stopPoll.query.get('gpu')).toBe('NVIDIA A100');
    platform.stop('long');
    await pollUntil(() => aborted);
    platform.push({ id: 'next', input: {} });
    await doneFor('next');
    expect(platform.on('job-done').filter((r) => r.path.endsWith('/long'))).toEqual([]);
  });

  it('retries job-done on 5xx, gives up at once on 4xx, and logs the lost result', async () => {
    platform.doneStatuses.push(503, 400);
    start(async (job) => job.id);
    platform.push({ id: 'r1', input: {} });
    await pollUntil(() => platform.on('job-done').length === 2, { timeoutMs: 5000 });
    await pollUntil(() =>
      logs.some((line) => line.includes('Failed to return job results') && line.includes('HTTP 400')),
    );
    platform.push({ id: 'r2', input: {} });
    await doneFor('r2');
    expect(platform.on('job-done').map((r) => r.path.split('/').at(-1))).toEqual(['r1', 'r1', 'r2']);
  });

  it('skips job objects without id or input, and goes on after 400 and 500 answers to job-take', async () => {
    const seen: string[] = [];
    platform.takeStatuses.push(400, 500);
    start(async (job) => void seen.push(job.id));
    await pollUntil(() => platform.parked === 1, { timeoutMs: 4000 });
    platform.push({ id: 'no-input' }, { input: {} }, { id: 'ok', input: {} });
    await doneFor('ok');
    expect(seen).toEqual(['ok']);
    expect(logs.some((line) => line.includes('missing field'))).toBe(true);
    expect(logs.some((line) => line.includes('HTTP 500'))).toBe(true);
  });

  it('on shutdown stops taking, lets running jobs report, then resolves', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let finished = false;
    start(
      async () => {
        await gate;
        return 'done';
      },
      { concurrency: 2 },
    );
    platform.push({ id: 'last', input: {} });
    await pollUntil(() => platform.parked === 1);
    const stopped = (running as Promise<void>).then(() => (finished = true));
    controller.abort();
    await pollUntil(() => platform.parked === 0);
    expect(finished).toBe(false);
    release();
    await stopped;
    expect(JSON.parse((await doneFor('last')).body)).toEqual({ output: 'done' });
  });
});
