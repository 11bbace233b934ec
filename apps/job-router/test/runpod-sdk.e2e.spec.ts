// Acceptance: RunPod's own npm client (runpod-sdk, unmodified) against a job-router listening on a real port,
// with endpoints served by real protocol workers (@runplane/worker-sdk, in-process). Every result is checked.
import runpodSdk from 'runpod-sdk';
import { pollUntil } from '@runplane/testing';
import { runWorker, type HandlerContext, type JobHandler, type WorkerJob } from '@runplane/worker-sdk';
import { startJobRouter, type JobRouterHarness } from './harness';

type SdkEndpoint = NonNullable<ReturnType<ReturnType<typeof runpodSdk>['endpoint']>>;
/** runpod-sdk's status helpers add started / completed / succeeded, which its typings leave out. */
type StatusAnswer = Record<string, unknown> & { id: string; status: string; completed?: boolean };

interface EchoInput {
  text?: string;
  stream?: boolean;
  fail?: string;
  hold?: boolean;
}

const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[a-z0-9]+$/;

describe('runpod-sdk (RunPod npm client) against job-router and protocol workers', () => {
  let h: JobRouterHarness;
  let baseUrl: string;
  let secret: string;
  let accountId: string;
  const shutdown = new AbortController();
  const workers: Promise<void>[] = [];
  /** Jobs a `hold` handler is holding, with their release switch; aborted ones are recorded. */
  const held = new Map<string, () => void>();
  const stopped = new Set<string>();

  async function* words(text: string): AsyncGenerator<string> {
    for (const word of text.split(' ')) yield word;
  }

  function hold(job: WorkerJob, context: HandlerContext): Promise<void> {
    return new Promise((resolve) => {
      held.set(job.id, resolve);
      context.signal.addEventListener('abort', () => {
        stopped.add(job.id);
        resolve();
      });
    });
  }

  const handler: JobHandler = (job, context) => {
    const input = job.input as EchoInput;
    if (input.stream === true) return words(input.text ?? '');
    return (async () => {
      if (input.fail) return { error: input.fail };
      if (input.hold) await hold(job, context);
      return { echo: input, s3: job.s3Config ?? null };
    })();
  };

  async function serve(endpointId: string, workerId: string, concurrency = 4): Promise<void> {
    const token = await h.workerToken(endpointId, workerId);
    const log = (message: string): void => void process.stderr.write(`[${workerId}] ${message}\n`);
    workers.push(
      runWorker({ handler, baseUrl, endpointId, workerId, token, concurrency, signal: shutdown.signal, log }),
    );
  }

  async function newEndpoint(): Promise<{ id: string; sdk: SdkEndpoint }> {
    const id = await h.endpoint(accountId);
    const sdk = runpodSdk(secret, { baseUrl }).endpoint(id);
    if (!sdk) throw new Error('runpod-sdk returned no endpoint');
    return { id, sdk };
  }

  const finished = (sdk: SdkEndpoint, id: string) =>
    pollUntil(
      async () => {
        const status = (await sdk.status(id)) as unknown as StatusAnswer;
        return status.completed === true ? status : undefined;
      },
      { timeoutMs: 10_000, description: `job ${id} terminal` },
    );

  beforeAll(async () => {
    h = await startJobRouter('runpod-sdk', { JOB_TAKE_WAIT_MS: '1000', JOB_STREAM_WAIT_MS: '1000' });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `${await h.app.getUrl()}/v2`;
    ({ accountId, secret } = await h.accountWithKey());
  });

  afterAll(async () => {
    shutdown.abort();
    // A worker finishes the jobs it holds before it stops, and a take already on its way may still hand it a `hold`
    // job: keep releasing held jobs until every worker has stopped.
    const release = (): void => held.forEach((resolve) => resolve());
    release();
    const releasing = setInterval(release, 50);
    try {
      await Promise.all(workers);
    } finally {
      clearInterval(releasing);
    }
    await h?.close();
  });

  it('run, then status until COMPLETED, with the worker output, s3Config passed through and 200s only', async () => {
    const { id: endpointId, sdk } = await newEndpoint();
    await serve(endpointId, 'sdk-run-1');
    const s3Config = { accessId: 'a', accessSecret: 's', bucketName: 'b', endpointUrl: 'http://s3.local' };
    const accepted = await sdk.run({ input: { text: 'hello' }, s3Config });
    expect(accepted).toEqual({ id: expect.stringMatching(JOB_ID), status: 'IN_QUEUE' });
    const result = await finished(sdk, accepted.id);
    expect(result).toMatchObject({
      id: accepted.id,
      status: 'COMPLETED',
      output: { echo: { text: 'hello' }, s3: s3Config },
      workerId: 'sdk-run-1',
      started: true,
      completed: true,
      succeeded: true,
    });
    expect(typeof result.delayTime).toBe('number');
    expect(typeof result.executionTime).toBe('number');
  });

  it('runSync returns the finished record (sync- id); a handler error comes back FAILED with a string error', async () => {
    const { id: endpointId, sdk } = await newEndpoint();
    await serve(endpointId, 'sdk-sync-1');
    const ok = await sdk.runSync({ input: { text: 'now' } }, 10_000);
    expect(ok).toMatchObject({
      status: 'COMPLETED',
      output: { echo: { text: 'now' } },
      completed: true,
      succeeded: true,
    });
    expect(ok.id).toMatch(/^sync-/);
    const failed = await sdk.runSync({ input: { fail: 'no such model' } }, 10_000);
    expect(failed).toMatchObject({ status: 'FAILED', error: 'no such model', completed: true, succeeded: false });
  });

  it('stream yields every chunk in order and ends on the terminal status', async () => {
    const { id: endpointId, sdk } = await newEndpoint();
    await serve(endpointId, 'sdk-stream-1');
    const { id } = await sdk.run({ input: { stream: true, text: 'one two three four' } });
    const chunks: unknown[] = [];
    for await (const chunk of sdk.stream(id, 15_000)) chunks.push(chunk);
    expect(chunks).toEqual([{ output: 'one' }, { output: 'two' }, { output: 'three' }, { output: 'four' }]);
    expect(await sdk.status(id)).toMatchObject({ status: 'COMPLETED', completed: true });
  });

  it('cancel stops a running job: CANCELLED for the client, the handler told to stop over job-stop', async () => {
    const { id: endpointId, sdk } = await newEndpoint();
    await serve(endpointId, 'sdk-cancel-1');
    const { id } = await sdk.run({ input: { hold: true } });
    await pollUntil(() => held.has(id), { timeoutMs: 10_000, description: 'the job reaches the worker' });
    expect(await sdk.status(id)).toMatchObject({ id, status: 'IN_PROGRESS', started: true, completed: false });
    expect(await sdk.cancel(id)).toMatchObject({ id, status: 'CANCELLED' });
    await pollUntil(() => stopped.has(id), { timeoutMs: 10_000, description: 'the worker is told to stop the job' });
    expect(await sdk.status(id)).toMatchObject({ id, status: 'CANCELLED', completed: true, succeeded: false });
  });

  it('health counts the endpoint jobs and its worker', async () => {
    const { id: endpointId, sdk } = await newEndpoint();
    await serve(endpointId, 'sdk-health-1');
    for (const input of [{ text: 'a' }, { text: 'b' }, { fail: 'x' }]) await sdk.runSync({ input }, 10_000);
    const health = await pollUntil(async () => {
      const answer = await sdk.health();
      return answer.jobs.completed === 2 ? answer : undefined;
    });
    expect(health.jobs).toEqual({ completed: 2, failed: 1, inProgress: 0, inQueue: 0, retried: 0 });
    expect(health.workers).toEqual({
      idle: expect.any(Number),
      running: expect.any(Number),
      initializing: expect.any(Number),
      throttled: expect.any(Number),
      unhealthy: expect.any(Number),
    });
    const workers = health.workers as unknown as Record<string, number>;
    expect((workers.idle ?? 0) + (workers.running ?? 0)).toBe(1);
  });

  it('purgeQueue removes the queued jobs and lets the running one finish', async () => {
    const { id: endpointId, sdk } = await newEndpoint();
    await serve(endpointId, 'sdk-purge-1', 1);
    const running = await sdk.run({ input: { hold: true } });
    await pollUntil(() => held.has(running.id), { timeoutMs: 10_000, description: 'the first job reaches the worker' });
    const queued = [await sdk.run({ input: { text: 'q1' } }), await sdk.run({ input: { text: 'q2' } })];
    expect(queued.map((job) => job.status)).toEqual(['IN_QUEUE', 'IN_QUEUE']);
    expect(await sdk.purgeQueue()).toEqual({ removed: 2, status: 'completed' });
    expect((await sdk.health()).jobs).toMatchObject({ inQueue: 0, inProgress: 1 });
    held.get(running.id)?.();
    expect(await finished(sdk, running.id)).toMatchObject({ status: 'COMPLETED', output: { echo: { hold: true } } });
    expect((await sdk.health()).jobs).toMatchObject({ inQueue: 0, inProgress: 0 });
  });

  it('a wrong key is refused (401) and an unknown endpoint is 404, both as thrown client errors', async () => {
    const { id: endpointId } = await newEndpoint();
    const wrong = runpodSdk('rpl_not-a-key', { baseUrl }).endpoint(endpointId) as SdkEndpoint;
    await expect(wrong.run({ input: {} })).rejects.toMatchObject({ response: { status: 401 } });
    const unknown = runpodSdk(secret, { baseUrl }).endpoint('nosuchendpoint') as SdkEndpoint;
    await expect(unknown.run({ input: {} })).rejects.toMatchObject({ response: { status: 404 } });
  });
});
