import { request as httpRequest, type IncomingMessage } from 'node:http';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pollUntil } from '@runplane/testing';
import { type LogPlatform, startLogPlatform } from './v2-logs-platform';

interface SseEvent {
  id: string;
  data: { ts: string; source: 'container' | 'system'; line: string };
}

/** An open SSE response, parsed as it arrives. */
interface SseStream {
  status: number;
  headers: IncomingMessage['headers'];
  events: SseEvent[];
  body: string;
  /** Resolves once the server ended the response. */
  ended: Promise<void>;
  close(): void;
}

/** GETs `path` from the gateway and parses Server-Sent Events until closed. */
function openSse(baseUrl: string, path: string, headers: Record<string, string>): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers }, (res) => {
      const stream: SseStream = {
        ended: new Promise((done) => res.on('end', done).on('close', done)),
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        body: '',
        close: () => req.destroy(),
      };
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        stream.body += chunk;
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (id !== undefined && data !== undefined)
            stream.events.push({ id, data: JSON.parse(data) as SseEvent['data'] });
        }
      });
      res.on('error', () => undefined);
      resolve(stream);
    });
    req.on('error', (error) => ((error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    req.end();
  });
}

const ticks = (events: SseEvent[]): number[] =>
  events.filter((e) => e.data.source === 'container').map((e) => Number(/^tick (\d+)$/.exec(e.data.line)?.[1]));

describe('v2 log streams (SSE) of a local Pod and worker', () => {
  let p: LogPlatform;
  let podId: string;
  let owner: { secret: string };
  let other: { secret: string };
  const streams: SseStream[] = [];
  const auth = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });
  const open = async (
    path: string,
    headers: Record<string, string> = {},
    secret = owner.secret,
  ): Promise<SseStream> => {
    const stream = await openSse(p.gatewayUrl, path, { ...auth(secret), ...headers });
    streams.push(stream);
    return stream;
  };
  const v1 = async (method: string, path: string, body?: unknown): Promise<{ id: string }> => {
    const json =
      body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    const response = await fetch(`${p.gatewayUrl}/v1${path}`, {
      method,
      ...json,
      headers: { ...auth(owner.secret), ...json.headers },
    });
    expect(response.status).toBeLessThan(300);
    return response.status === 204 ? { id: '' } : ((await response.json()) as { id: string });
  };

  beforeAll(async () => {
    p = await startLogPlatform('v2-logs');
    owner = await p.tenant('owner');
    other = await p.tenant('other tenant');
    podId = (
      await v1('POST', '/pods', {
        name: 'ticker',
        imageName: 'runplane/ticker:1',
        gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
        gpuCount: 1,
        dockerEntrypoint: ['node'],
        dockerStartCmd: ['-e', 'let n = 0; setInterval(() => console.log(`tick ${++n}`), 50)'],
      })
    ).id;
    const record = join(p.stateDir, 'workloads', `${podId}.json`);
    await pollUntil(
      () => existsSync(record) && (JSON.parse(readFileSync(record, 'utf8')) as { phase: string }).phase === 'RUNNING',
      { timeoutMs: 60_000, description: 'the ticker running' },
    );
  }, 180_000);

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await p?.close();
  });

  it('backfills `tail` lines then follows, as text/event-stream with SSE headers', async () => {
    await pollUntil(async () => ticks((await backlog(p, owner.secret, podId)).events).length >= 5, {
      timeoutMs: 20_000,
    });
    const stream = await open(`/v2/pods/${podId}/logs?tail=3&source=container`);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['cache-control']).toBe('no-cache');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    expect(stream.headers['x-request-id']).toEqual(expect.any(String));
    await pollUntil(() => ticks(stream.events).length >= 8, { timeoutMs: 20_000, description: 'followed lines' });
    const seen = ticks(stream.events);
    // Three lines of backfill, then every line after them, in order and without a gap.
    expect(seen).toEqual(seen.map((_, i) => (seen[0] as number) + i));
    expect(new Set(stream.events.map((e) => e.id)).size).toBe(stream.events.length);
    expect(stream.events[0]?.data.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/);
  });

  it('resumes after Last-Event-ID with exactly the next line, whatever the tail', async () => {
    const first = await open(`/v2/pods/${podId}/logs?tail=5&source=container`);
    await pollUntil(() => first.events.length >= 5, { timeoutMs: 20_000 });
    first.close();
    const last = first.events[2] as SseEvent;
    const resumed = await open(`/v2/pods/${podId}/logs?tail=0`, { 'last-event-id': last.id });
    await pollUntil(() => ticks(resumed.events).length >= 3, { timeoutMs: 20_000 });
    expect(ticks(resumed.events)[0]).toBe(Number(/\d+$/.exec(last.data.line)?.[0]) + 1);
  });

  it('tail=0 streams live lines only; source=system sends the platform lines only', async () => {
    const live = await open(`/v2/pods/${podId}/logs?tail=0&source=container`);
    const before = ticks((await backlog(p, owner.secret, podId)).events).at(-1) as number;
    await pollUntil(() => ticks(live.events).length >= 2, { timeoutMs: 20_000 });
    expect(ticks(live.events)[0]).toBeGreaterThanOrEqual(before);
    const system = await open(`/v2/pods/${podId}/logs?source=system`);
    await pollUntil(() => system.events.length >= 1, { timeoutMs: 20_000 });
    expect(system.events.map((e) => e.data.source)).toEqual(['system']);
    expect(system.events[0]?.data.line).toMatch(/^Started generation 1 as process \d+/);
  });

  it("a client that disconnects releases the scheduler's file watch at once", async () => {
    for (const stream of streams) stream.close();
    await pollUntil(() => p.schedulerWatches() === 0, { timeoutMs: 10_000, description: 'earlier streams released' });
    const stream = await open(`/v2/pods/${podId}/logs?tail=1`);
    await pollUntil(() => stream.events.length >= 2, { timeoutMs: 20_000 });
    expect(p.schedulerWatches()).toBe(1);
    stream.close();
    await pollUntil(() => p.schedulerWatches() === 0, { timeoutMs: 5_000, description: 'the follower closed' });
  });

  it("streams a serverless worker's log under its endpoint only", async () => {
    const template = await v1('POST', '/templates', {
      name: 'ticking-worker',
      imageName: 'runplane/ticker:1',
      isServerless: true,
      dockerEntrypoint: ['node'],
      dockerStartCmd: ['-e', 'let n = 0; setInterval(() => console.log(`tick ${++n}`), 50)'],
    });
    const endpointId = (
      await v1('POST', '/endpoints', {
        name: 'logs',
        templateId: template.id,
        gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
        workersMin: 1,
        workersMax: 1,
      })
    ).id;
    // The scheduler's autoscaler starts the endpoint's one worker as a local process.
    const worker = await pollUntil(() => p.db.pod.findFirst({ where: { endpointId, observedPhase: 'RUNNING' } }), {
      timeoutMs: 60_000,
      description: 'the worker running',
    });
    const stream = await open(`/v2/serverless/${endpointId}/workers/${worker.id}/logs?tail=2&source=container`);
    expect(stream.status).toBe(200);
    await pollUntil(() => ticks(stream.events).length >= 3, { timeoutMs: 20_000 });
    const seen = ticks(stream.events);
    expect(seen).toEqual(seen.map((_, i) => (seen[0] as number) + i));
    expect((await open(`/v2/pods/${worker.id}/logs`)).status).toBe(404);
    expect((await open(`/v2/serverless/${endpointId}/workers/${podId}/logs`)).status).toBe(404);
    expect((await open(`/v2/serverless/other-endpoint/workers/${worker.id}/logs`)).status).toBe(404);
    expect((await open(`/v2/serverless/${endpointId}/workers/${worker.id}/logs`, {}, other.secret)).status).toBe(404);
    stream.close();
    await v1('DELETE', `/endpoints/${endpointId}`);
  });

  it.each([
    ['tail=5001', 'tail: must be <= 5000'],
    ['tail=-1', 'tail: must be >= 0'],
    ['tail=many', 'tail: expected a number'],
    ['since=yesterday', 'since: expected an RFC 3339 date-time'],
    ['source=stderr', 'source:'],
  ])('answers ?%s with a 422 problem naming the parameter', async (query, error) => {
    const answer = await open(`/v2/pods/${podId}/logs?${query}`);
    expect(answer.status).toBe(422);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    await pollUntil(() => answer.body.endsWith('}'));
    const problem = JSON.parse(answer.body) as { status: number; errors: string[] };
    expect(problem.status).toBe(422);
    expect(problem.errors.join(' ')).toContain(error);
  });

  it('answers a Last-Event-ID it never sent with 422, and another tenant, no key or an unknown Pod with 401/404', async () => {
    const bad = await open(`/v2/pods/${podId}/logs`, { 'last-event-id': 'not-an-id' });
    expect(bad.status).toBe(422);
    expect((await open(`/v2/pods/${podId}/logs`, {}, other.secret)).status).toBe(404);
    expect((await open('/v2/pods/nope/logs')).status).toBe(404);
    expect((await open(`/v2/pods/${podId}/logs`, {}, 'not-a-key')).status).toBe(401);
  });

  it('answers a 503 problem when no scheduler takes the stream', async () => {
    // A paused scheduler hears nothing until it resumes (then it finds nobody listening and drops the stream).
    process.kill(p.scheduler.pid, 'SIGSTOP');
    const answer = await open(`/v2/pods/${podId}/logs`).finally(() => process.kill(p.scheduler.pid, 'SIGCONT'));
    expect(answer.status).toBe(503);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    await pollUntil(() => answer.body.endsWith('}'));
    expect(JSON.parse(answer.body)).toMatchObject({ status: 503, detail: expect.stringContaining('log stream') });
  });
  it('a gateway shutting down ends its open streams with an error event, so clients reconnect elsewhere', async () => {
    const stream = await open(`/v2/pods/${podId}/logs?tail=1`);
    await pollUntil(() => stream.events.length >= 1, { timeoutMs: 20_000 });
    await p.closeGateway();
    await stream.ended;
    expect(stream.body).toMatch(
      /event: error\ndata: \{"message":"The gateway is shutting down; reconnect with Last-Event-ID"\}\n\n$/,
    );
    await pollUntil(() => p.schedulerWatches() === 0, { timeoutMs: 5_000, description: 'the follower closed' });
  });
});

/** The whole current log of the Pod, read through a stream that is closed at once. */
async function backlog(p: LogPlatform, secret: string, podId: string): Promise<SseStream> {
  const stream = await openSse(p.gatewayUrl, `/v2/pods/${podId}/logs?tail=5000&source=container`, {
    authorization: `Bearer ${secret}`,
  });
  await pollUntil(() => stream.body.includes('data:') || stream.status !== 200, { timeoutMs: 10_000 });
  await new Promise((resolve) => setImmediate(resolve));
  stream.close();
  return stream;
}
