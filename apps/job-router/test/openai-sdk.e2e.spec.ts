// Compatibility proof: the official `openai` npm client, unmodified, with baseURL <router>/v2/<endpoint>/openai/v1,
// against a job-router on a real port and a vLLM-like protocol worker (@runplane/worker-sdk) behind it.
import type { Server } from 'node:http';
import OpenAI from 'openai';
import { pollUntil } from '@runplane/testing';
import { runWorker } from '@runplane/worker-sdk';
import { type JobRouterHarness, startJobRouter } from './harness';
import { dropConnections, FakeVllm, MODELS } from './openai-worker';

describe('openai npm client against the OpenAI-compatible route', () => {
  let h: JobRouterHarness;
  let client: OpenAI;
  let url: string;
  let account: { accountId: string; secret: string };
  const shutdown = new AbortController();
  let worker: Promise<void> | undefined;

  beforeAll(async () => {
    h = await startJobRouter('jr-openai-sdk', { JOB_TAKE_WAIT_MS: '1000' });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    url = await h.app.getUrl();
    account = await h.accountWithKey();
    const { accountId, secret } = account;
    const endpointId = await h.endpoint(accountId);
    const token = await h.workerToken(endpointId, 'vllm-1');
    const vllm = new FakeVllm();
    const log = (message: string): void => void process.stderr.write(`[vllm-1] ${message}\n`);
    worker = runWorker({
      handler: vllm.handler,
      baseUrl: `${url}/v2`,
      endpointId,
      workerId: 'vllm-1',
      token,
      returnAggregateStream: true,
      signal: shutdown.signal,
      log,
    });
    // No retries: a 500 must surface as the client's error, once.
    client = new OpenAI({ apiKey: secret, baseURL: `${url}/v2/${endpointId}/openai/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    shutdown.abort();
    await worker;
    if (h) await dropConnections(h.app.getHttpServer() as Server);
    await h?.close();
  });

  it('chat.completions.create answers the worker completion', async () => {
    const completion = await client.chat.completions.create({
      model: MODELS.echo,
      messages: [{ role: 'user', content: 'hello from openai' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(MODELS.echo);
    expect(completion.choices[0]?.message.content).toBe('hello from openai');
  });

  it('chat.completions.create with stream: true yields every chunk', async () => {
    const stream = await client.chat.completions.create({
      model: MODELS.echo,
      messages: [{ role: 'user', content: 'one two three four' }],
      stream: true,
    });
    const parts: string[] = [];
    const finishes: (string | null | undefined)[] = [];
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      parts.push(chunk.choices[0]?.delta.content ?? '');
      finishes.push(chunk.choices[0]?.finish_reason);
    }
    expect(parts.join('')).toBe('one two three four');
    expect(finishes.at(-1)).toBe('stop');
  });

  it('models.list reads /v1/models', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual([MODELS.echo]);
  });

  it("a job its owner cancels is the client's APIError 409, and the client does not send the request again", async () => {
    // An endpoint with no worker: the request's job waits in the queue until purge-queue cancels it.
    const endpointId = await h.endpoint(account.accountId);
    const retrying = new OpenAI({
      apiKey: account.secret,
      baseURL: `${url}/v2/${endpointId}/openai/v1`,
      maxRetries: 2,
    });
    const owner = (path: string, method = 'GET'): Promise<Response> =>
      fetch(`${url}/v2/${endpointId}/${path}`, { method, headers: { authorization: `Bearer ${account.secret}` } });
    const failure = retrying.chat.completions.create({
      model: MODELS.echo,
      messages: [{ role: 'user', content: 'x' }],
    });
    failure.catch(() => undefined);
    await pollUntil(
      async () =>
        ((await (await owner('health')).json()) as { jobs: { inQueue: number } }).jobs.inQueue === 1 || undefined,
      {
        description: 'the request to be queued as a job',
      },
    );
    expect(await (await owner('purge-queue', 'POST')).json()).toMatchObject({ removed: 1 });
    await expect(failure).rejects.toMatchObject({ status: 409, error: { type: 'cancelled', code: 'job_cancelled' } });
    // Sent again, the request would have queued a new job for the next purge to remove.
    expect(await (await owner('purge-queue', 'POST')).json()).toMatchObject({ removed: 0 });
  });

  it("a failed job is the client's APIError with status 500 and the worker's message", async () => {
    const failure = client.chat.completions.create({
      model: MODELS.broken,
      messages: [{ role: 'user', content: 'x' }],
    });
    await expect(failure).rejects.toBeInstanceOf(OpenAI.APIError);
    await expect(failure).rejects.toMatchObject({
      status: 500,
      error: { message: 'model broken', type: 'worker_error' },
    });
  });

  it('a stream failing midway throws in the client loop after the first chunks', async () => {
    const stream = await client.chat.completions.create({
      model: MODELS.failsMidway,
      messages: [{ role: 'user', content: 'alpha beta' }],
      stream: true,
    });
    const parts: string[] = [];
    const reading = (async () => {
      for await (const chunk of stream) parts.push(chunk.choices[0]?.delta.content ?? '');
    })();
    await expect(reading).rejects.toThrow(/GPU fell off the bus/);
    expect(parts.join('')).toBe('alpha');
  });
});
