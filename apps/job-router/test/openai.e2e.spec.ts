// The OpenAI-compatible route (/v2/{endpointId}/openai/v1/...) against a job-router on a real port, with real
// protocol workers (@runplane/worker-sdk) behind it: a vLLM-like generator worker and a plain handler.
import { createAccountsServices } from '@runplane/accounts';
import type { Server } from 'node:http';
import { pollUntil } from '@runplane/testing';
import { runWorker, type JobHandler } from '@runplane/worker-sdk';
import { bearer, type JobRouterHarness, startJobRouter } from './harness';
import { chatCompletion, dropConnections, FakeVllm, MODEL_LIST, MODELS, plainHandler } from './openai-worker';

/** The JSON payloads of an SSE body's `data:` events, `[DONE]` as the string. */
function sseData(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length))
    .map((data) => (data === '[DONE]' ? data : (JSON.parse(data) as unknown)));
}

/** The assistant text of a chat completion stream's chunks. */
function streamedText(events: unknown[]): string {
  return events
    .map((event) => (event as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content ?? '')
    .join('');
}

const chat = (model: string, content: string, stream = false) => ({
  model,
  messages: [{ role: 'user', content }],
  stream,
});

describe('job-router OpenAI-compatible route', () => {
  let h: JobRouterHarness;
  let baseUrl: string;
  let accountId: string;
  let secret: string;
  let vllmEndpoint: string;
  let plainEndpoint: string;
  const vllm = new FakeVllm();
  const shutdown = new AbortController();
  const workers: Promise<void>[] = [];

  async function serve(endpointId: string, handler: JobHandler, returnAggregateStream: boolean): Promise<void> {
    const workerId = `w-${endpointId}`;
    const token = await h.workerToken(endpointId, workerId);
    const log = (message: string): void => void process.stderr.write(`[${workerId}] ${message}\n`);
    workers.push(
      runWorker({
        handler,
        baseUrl: `${baseUrl}/v2`,
        endpointId,
        workerId,
        token,
        concurrency: 4,
        returnAggregateStream,
        signal: shutdown.signal,
        log,
      }),
    );
  }

  /** A request through a real HTTP client (fetch), so streamed bodies arrive as the server writes them. */
  function call(
    endpointId: string,
    path: string,
    init: { method?: string; body?: unknown; key?: string; signal?: AbortSignal } = {},
  ) {
    return fetch(`${baseUrl}/v2/${endpointId}/openai/v1/${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { ...bearer(init.key ?? secret), 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  }

  beforeAll(async () => {
    h = await startJobRouter('jr-openai', { JOB_TAKE_WAIT_MS: '1000' });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = await h.app.getUrl();
    ({ accountId, secret } = await h.accountWithKey());
    vllmEndpoint = await h.endpoint(accountId);
    plainEndpoint = await h.endpoint(accountId);
    // worker-vllm starts with return_aggregate_stream: its non-stream output is `[<openai json>]`.
    await serve(vllmEndpoint, vllm.handler, true);
    await serve(plainEndpoint, plainHandler, false);
  });

  afterAll(async () => {
    shutdown.abort();
    await Promise.all(workers);
    if (h) await dropConnections(h.app.getHttpServer() as Server);
    await h?.close();
  });

  it('answers a non-stream chat completion with the worker JSON (200, application/json)', async () => {
    const body = chat(MODELS.echo, 'hello there');
    const response = await call(vllmEndpoint, 'chat/completions', { body });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(chatCompletion(MODELS.echo, 'hello there'));
    // The job the worker got is RunPod's passthrough input, the request body unchanged.
    const inputs = [...vllm.inputs.values()].filter((input) => input.openai_route === '/v1/chat/completions');
    expect(inputs).toContainEqual({ openai_route: '/v1/chat/completions', openai_input: body });
  });

  it('answers a plain handler dict as it is', async () => {
    const response = await call(plainEndpoint, 'chat/completions', { body: chat('plain-1', 'hi') });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(chatCompletion('plain-1', 'plain answer to /v1/chat/completions'));
  });

  it('sends GET /v1/models with no openai_input, and keeps slashes of deeper paths', async () => {
    const response = await call(vllmEndpoint, 'models');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(MODEL_LIST);
    expect([...vllm.inputs.values()]).toContainEqual({ openai_route: '/v1/models' });
    const deeper = await call(vllmEndpoint, 'models/org/echo-1');
    expect(deeper.status).toBe(200);
    expect([...vllm.inputs.values()]).toContainEqual({ openai_route: '/v1/models/org/echo-1' });
  });

  it('streams the worker SSE text as text/event-stream, ending when the job ends', async () => {
    const response = await call(vllmEndpoint, 'chat/completions', { body: chat(MODELS.echo, 'one two three', true) });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseData(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    expect(streamedText(events)).toBe('one two three');
    expect(events.filter((event) => event === '[DONE]')).toHaveLength(1);
  });

  it('writes each chunk as it arrives: the first words are read while the worker still holds the rest', async () => {
    const response = await call(vllmEndpoint, 'chat/completions', {
      body: chat(MODELS.gated, 'first second third', true),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    // The worker yields no more until released, so reading "first" proves it was relayed before the job ended.
    while (!received.includes('"first"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended early: ${received}`);
      received += decoder.decode(value, { stream: true });
    }
    const [jobId] = [...vllm.inputs.entries()].find(([id]) => vllm.isWaiting(id)) ?? [];
    expect(jobId).toBeDefined();
    vllm.releaseGate(jobId!);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    expect(streamedText(sseData(received))).toBe('first second third');
  });

  it('streams a plain handler answer as one event and [DONE]', async () => {
    const response = await call(plainEndpoint, 'chat/completions', { body: chat('plain-1', 'hi', true) });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(sseData(await response.text())).toEqual([
      chatCompletion('plain-1', 'plain answer to /v1/chat/completions'),
      '[DONE]',
    ]);
  });

  it("answers a failed job with 500 and OpenAI's error object (the worker's own when it sent one)", async () => {
    const response = await call(vllmEndpoint, 'chat/completions', { body: chat(MODELS.broken, 'hi') });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { message: 'model broken', type: 'worker_error', code: null } });
    // Failing before its first chunk, a stream request gets the same plain 500.
    const streamed = await call(vllmEndpoint, 'chat/completions', { body: chat(MODELS.broken, 'hi', true) });
    expect(streamed.status).toBe(500);
    expect(streamed.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await streamed.json()).toEqual({ error: { message: 'model broken', type: 'worker_error', code: null } });
  });

  it('ends a stream whose job fails midway with an error event', async () => {
    const response = await call(vllmEndpoint, 'chat/completions', {
      body: chat(MODELS.failsMidway, 'alpha beta', true),
    });
    expect(response.status).toBe(200);
    const events = sseData(await response.text());
    expect(streamedText(events)).toBe('alpha');
    expect(events.at(-1)).toEqual({
      error: { message: expect.stringContaining('GPU fell off the bus'), type: 'worker_error', code: null },
    });
    expect(events).not.toContain('[DONE]');
  });

  it.each([
    ['stream', true],
    ['non-stream', false],
  ])('cancels the job of a %s client that goes away', async (_kind, stream) => {
    const idle = await h.endpoint(accountId);
    const abort = new AbortController();
    const pending = call(idle, 'chat/completions', {
      body: chat(MODELS.echo, 'nobody serves this', stream),
      signal: abort.signal,
    });
    pending.catch(() => undefined);
    const [job] = await pollUntil(
      async () => {
        const recent = await h.engine().recent(idle, 10);
        return recent.length > 0 ? recent : undefined;
      },
      { description: 'the job is queued' },
    );
    expect(job?.status).toBe('IN_QUEUE');
    abort.abort();
    await pollUntil(async () => (await h.engine().get(idle, job!.id)).status === 'CANCELLED', {
      timeoutMs: 10_000,
      description: 'the abandoned job is cancelled',
    });
  });

  it('takes bodies up to the /runsync limit, above the 1 MiB of other routes', async () => {
    const response = await call(vllmEndpoint, 'chat/completions', {
      body: chat(MODELS.echo, 'x'.repeat(2 * 1024 * 1024)),
    });
    expect(response.status).toBe(200);
  });

  describe('errors before a job exists keep the job API shape', () => {
    it('401 without a key, for a READ_ONLY key on POST, and for a RESTRICTED key of another endpoint', async () => {
      const missing = await fetch(`${baseUrl}/v2/${vllmEndpoint}/openai/v1/models`);
      expect(missing.status).toBe(401);
      expect(await missing.json()).toMatchObject({ error: 'Missing API key' });
      const readOnly = (await h.accountWithKey('READ_ONLY')).secret;
      // A READ_ONLY key of another account: 401 on POST before the endpoint is even looked up.
      expect(
        (await call(vllmEndpoint, 'chat/completions', { body: chat(MODELS.echo, 'x'), key: readOnly })).status,
      ).toBe(401);
      const elsewhere = await h.accountWithKey('RESTRICTED', ['some-other-endpoint']);
      const denied = await call(vllmEndpoint, 'models', { key: elsewhere.secret });
      expect(denied.status).toBe(401);
      expect(await denied.json()).toMatchObject({ error: expect.stringMatching(/restricted/) });
    });

    it('admits a RESTRICTED key naming the endpoint, when its account owns it', async () => {
      const { apiKeys } = createAccountsServices(h.db);
      const own = await apiKeys.create(accountId, {
        name: 'restricted',
        scope: 'RESTRICTED',
        allowedEndpointIds: [vllmEndpoint],
      });
      const admitted = await call(vllmEndpoint, 'models', { key: own.secret });
      expect(admitted.status).toBe(200);
      expect(await admitted.json()).toEqual(MODEL_LIST);
      // Another account's key naming the endpoint: 404, like every other job API route.
      const { secret: foreign } = await h.accountWithKey('RESTRICTED', [vllmEndpoint]);
      expect((await call(vllmEndpoint, 'models', { key: foreign })).status).toBe(404);
    });

    it('404 for an unknown endpoint or a missing route, 400 for bad JSON or a body that is not an object', async () => {
      const unknown = await call('no-such-endpoint', 'chat/completions', { body: chat(MODELS.echo, 'x') });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ error: 'Endpoint not found' });
      expect((await call(vllmEndpoint, '', { body: chat(MODELS.echo, 'x') })).status).toBe(404);
      const badJson = await fetch(`${baseUrl}/v2/${vllmEndpoint}/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { ...bearer(secret), 'content-type': 'application/json' },
        body: '{"model": ',
      });
      expect(badJson.status).toBe(400);
      expect(await badJson.json()).toMatchObject({ error: 'Request body is not valid JSON' });
      const notObject = await call(vllmEndpoint, 'chat/completions', { body: [1, 2] });
      expect(notObject.status).toBe(400);
      expect(await notObject.json()).toMatchObject({ error: expect.stringMatching(/^body: must be a JSON object/) });
      const empty = await call(vllmEndpoint, 'chat/completions', { method: 'POST' });
      expect(empty.status).toBe(400);
    });
  });
});
