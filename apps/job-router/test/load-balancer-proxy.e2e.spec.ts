// Load-balancing endpoints through the job-router: requests to <endpointId>.<RUNPLANE_LB_DOMAIN> reach the endpoint's
// ready workers (real local HTTP servers in RunPod's example worker shape), streaming both ways, WebSockets included.
import { request as httpRequest } from 'node:http';
import { pollUntil } from '@runplane/testing';
import WebSocket from 'ws';
import { bearer } from './harness';
import { chunkedUpload, type LbHarness, lbHost, startLbHarness } from './load-balancer-setup';
import { lbCall, LbWorkerPool } from './load-balancer-worker';

let lb: LbHarness;
let owner: { accountId: string; secret: string };
const workers = new LbWorkerPool();
const worker = workers.start;

beforeAll(async () => {
  lb = await startLbHarness('lb-proxy', { LB_WAIT_MS: '10000' });
  owner = await lb.h.accountWithKey();
});

afterAll(async () => {
  await workers.killAll();
  await lb.h.close();
});

const generate = (endpointId: string, secret: string, prompt = 'hi') =>
  lbCall(lb.port, {
    host: lbHost(endpointId),
    method: 'POST',
    path: '/generate',
    headers: { ...bearer(secret), 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });

describe('load-balancing proxy', () => {
  it('proxies a POST to a ready worker and keeps the API key from it', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const a = await worker('a');
    await lb.addWorker(endpointId, a);
    const answer = await generate(endpointId, owner.secret, 'hello');
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ generated_text: 'a says hello', worker: 'a' });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    expect(a.served).toEqual(['/generate']);
    expect(a.authorizations).toEqual([]);
  });

  it("answers 401 without a key or with a read-only one, 404 for another account's, a queue or an unknown endpoint", async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const queueEndpoint = await lb.h.endpoint(owner.accountId);
    const other = await lb.h.accountWithKey();
    const otherEndpoint = await lb.endpoint(other.accountId);
    const b = await worker('b');
    await lb.addWorker(otherEndpoint, b);

    const anonymous = await lbCall(lb.port, { host: lbHost(endpointId), path: '/generate' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'Missing API key', code: 'UNAUTHORIZED' });
    const readOnly = await lb.h.accountWithKey('READ_ONLY');
    const readOnlyAnswer = await generate(await lb.endpoint(readOnly.accountId), readOnly.secret);
    expect(readOnlyAnswer.status).toBe(401);
    expect(readOnlyAnswer.json()).toMatchObject({ error: 'This API key is read-only' });
    for (const id of [otherEndpoint, queueEndpoint, 'nosuchendpoint1']) {
      const answer = await generate(id, owner.secret);
      expect(answer.status).toBe(404);
      expect(answer.json()).toMatchObject({ error: 'Endpoint not found', code: 'NOT_FOUND' });
    }
    expect(b.served).toEqual([]);
    // The other tenant reaches its own worker with its own key.
    const own = await generate(otherEndpoint, other.secret);
    expect(own.json()).toMatchObject({ worker: 'b' });
  });

  it('sends traffic only to workers whose health check answers 200', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const starting = await worker('starting', 'initializing');
    const ready = await worker('ready');
    await lb.addWorker(endpointId, starting);
    await lb.addWorker(endpointId, ready);
    for (let i = 0; i < 4; i += 1)
      expect((await generate(endpointId, owner.secret)).json()).toMatchObject({ worker: 'ready' });
    expect(starting.served).toEqual([]);

    starting.ping = 'ready';
    await pollUntil(async () => (await generate(endpointId, owner.secret)).json()['worker'] === 'starting');
  });

  it('passes every method, path and query through', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const m = await worker('m');
    await lb.addWorker(endpointId, m);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'POST']) {
      const answer = await lbCall(lb.port, {
        host: lbHost(endpointId),
        method,
        path: '/method/x?y=1',
        headers: bearer(owner.secret),
        body: method === 'GET' ? undefined : `${method} body`,
      });
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({ method, path: '/method/x?y=1', body: method === 'GET' ? '' : `${method} body` });
    }
    const head = await lbCall(lb.port, {
      host: lbHost(endpointId),
      method: 'HEAD',
      path: '/method',
      headers: bearer(owner.secret),
    });
    expect([head.status, head.headers['x-worker'], head.text]).toEqual([200, 'm', '']);
  });

  it("checks health on the worker's health address (PORT_HEALTH) at its HEALTH_CHECK_PATH", async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const service = await worker('service', 'unhealthy');
    const health = await worker('health-server');
    health.healthPath = '/healthz';
    await lb.addWorker(endpointId, service, { healthAddress: health.address, env: { HEALTH_CHECK_PATH: '/healthz' } });
    expect((await generate(endpointId, owner.secret)).json()).toMatchObject({ worker: 'service' });
    expect(health.pings).toBeGreaterThan(0);
    expect(service.pings).toBe(0);
    // The endpoint's health URL (GET <HEALTH_CHECK_PATH>) is answered by the health server.
    const checked = await lbCall(lb.port, {
      host: lbHost(endpointId),
      path: '/healthz',
      headers: bearer(owner.secret),
    });
    expect(checked.status).toBe(200);
    expect(service.served).toEqual(['/generate']);
  });

  it('gives each request to the ready worker with the fewest requests in flight', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const [c, d] = [await worker('c'), await worker('d')];
    await lb.addWorker(endpointId, c);
    await lb.addWorker(endpointId, d);
    const hold = () => lbCall(lb.port, { host: lbHost(endpointId), path: '/hold', headers: bearer(owner.secret) });
    const first = hold();
    await pollUntil(() => c.held.length + d.held.length === 1);
    const second = hold();
    await pollUntil(() => c.held.length + d.held.length === 2);
    expect([c.held.length, d.held.length]).toEqual([1, 1]);
    c.releaseHeld();
    d.releaseHeld();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
  });

  it('passes an SSE stream through event by event', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const e = await worker('e');
    await lb.addWorker(endpointId, e);
    let received = '';
    let ended = false;
    const call = httpRequest({
      host: '127.0.0.1',
      port: lb.port,
      path: '/stream',
      headers: { ...bearer(owner.secret), host: lbHost(endpointId) },
    });
    call.on('response', (response) => {
      expect(response.headers['content-type']).toBe('text/event-stream');
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (received += chunk));
      response.on('end', () => (ended = true));
    });
    call.end();
    await pollUntil(() => e.served.includes('/stream'));
    e.nextEvent();
    await pollUntil(() => received.includes('"token":1'));
    // The worker has not sent the second event yet: the first reached the client on its own.
    expect(received).not.toContain('"token":2');
    e.nextEvent();
    await pollUntil(() => received.includes('"token":2'));
    expect(ended).toBe(false);
    e.nextEvent();
    await pollUntil(() => ended);
    expect(received.match(/^data: /gm)).toHaveLength(3);
  });

  it('passes a WebSocket through (echo), with the same key', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const f = await worker('f');
    await lb.addWorker(endpointId, f);
    const socket = new WebSocket(`ws://127.0.0.1:${lb.port}/ws`, {
      headers: { ...bearer(owner.secret), host: lbHost(endpointId) },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const echoes: string[] = [];
    socket.on('message', (data) => echoes.push(String(data)));
    socket.send('one');
    socket.send('two');
    await pollUntil(() => echoes.length === 2);
    expect(echoes).toEqual(['f:one', 'f:two']);
    expect(f.openSockets()).toBe(1);
    // A client that drops its connection drops the worker's.
    socket.terminate();
    await pollUntil(() => f.openSockets() === 0);

    const anonymous = new WebSocket(`ws://127.0.0.1:${lb.port}/ws`, { headers: { host: lbHost(endpointId) } });
    const status = await new Promise<number>((resolve) =>
      anonymous.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0)),
    );
    expect(status).toBe(401);
  });

  it('streams a request body to the worker as it is sent', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const g = await worker('g');
    await lb.addWorker(endpointId, g);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const answer = new Promise<string>((resolve, reject) => {
      const call = chunkedUpload(lb, owner.secret, endpointId);
      call.on('response', (response) => {
        let text = '';
        response.on('data', (part: Buffer) => (text += String(part)));
        response.on('end', () => resolve(text));
      });
      call.on('error', reject);
      call.write(chunk);
      // The first chunk reaches the worker while the client has not finished its body.
      void pollUntil(() => g.uploaded >= chunk.length).then(() => call.end(chunk), reject);
    });
    expect(JSON.parse(await answer)).toEqual({ bytes: 2 * chunk.length });
  });

  it("aborts the worker's request when the client goes away", async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const k = await worker('k');
    await lb.addWorker(endpointId, k);
    const call = httpRequest({
      host: '127.0.0.1',
      port: lb.port,
      path: '/hold',
      headers: { ...bearer(owner.secret), host: lbHost(endpointId) },
    });
    call.on('error', () => undefined);
    call.end();
    await pollUntil(() => k.held.length === 1);
    call.destroy();
    await pollUntil(() => k.aborted === 1);
  });
});
