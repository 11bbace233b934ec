// Scale from zero: a request to a load-balancing endpoint without workers waits, is published as waiting traffic with
// an lb.demand event for the autoscaler, and is served as soon as a worker's row appears and its health answers 200.
import { JobKeys, LoadBalancerRequestCounts, LoadBalancerTraffic } from '@runplane/jobs';
import { pollUntil } from '@runplane/testing';
import { request as httpRequest } from 'node:http';
import WebSocket from 'ws';
import { bearer } from './harness';
import { type LbHarness, lbHost, startLbHarness } from './load-balancer-setup';
import { lbCall, type LbWorker, startLbWorker } from './load-balancer-worker';

let lb: LbHarness;
let worker: LbWorker | undefined;
let socketWorker: LbWorker | undefined;
let leftWorker: LbWorker | undefined;
let closed = false;

beforeAll(async () => {
  lb = await startLbHarness('lb-scaling', { LB_WAIT_MS: '20000' });
});

afterAll(async () => {
  await worker?.kill();
  await socketWorker?.kill();
  await leftWorker?.kill();
  if (!closed) await lb.h.close();
});

async function demandEvents(endpointId: string): Promise<number> {
  const entries = await lb.h.redis.xrange(JobKeys.ofPrefix(lb.h.config.REDIS_PREFIX).events, '-', '+');
  return entries.filter(([, fields]) => {
    const event = Object.fromEntries(fields.flatMap((value, i) => (i % 2 === 0 ? [[value, fields[i + 1]]] : [])));
    return event['type'] === 'lb.demand' && event['endpointId'] === endpointId;
  }).length;
}

describe('load-balancing scale from zero', () => {
  it('serves a waiting request once a worker appears and answers 200', async () => {
    const { accountId, secret } = await lb.h.accountWithKey();
    const endpointId = await lb.endpoint(accountId);
    const traffic = new LoadBalancerTraffic(lb.h.redis, lb.h.config.REDIS_PREFIX);
    const answer = lbCall(lb.port, {
      host: lbHost(endpointId),
      method: 'POST',
      path: '/generate',
      headers: { ...bearer(secret), 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'cold start' }),
    });
    await pollUntil(async () => (await traffic.view(endpointId)).waiting === 1);
    expect(await demandEvents(endpointId)).toBe(1);

    // The scheduler places a worker: its row first, its address once the workload runs.
    const podId = await lb.addWorker(endpointId, null, { observedPhase: 'CREATING' });
    worker = await startLbWorker('cold', 'initializing');
    await lb.h.db.pod.update({
      where: { id: podId },
      data: { observedPhase: 'RUNNING', serviceAddress: worker.address, healthAddress: worker.address },
    });
    // Initializing (204): health-checked, given nothing; the request keeps waiting.
    const starting = worker;
    await pollUntil(() => starting.pings >= 2);
    expect(starting.served).toEqual([]);
    expect((await traffic.view(endpointId)).waiting).toBe(1);
    starting.ping = 'ready';

    const served = await answer;
    expect(served.status).toBe(200);
    expect(served.json()).toEqual({ generated_text: 'cold says cold start', worker: 'cold' });
    await pollUntil(async () => (await traffic.view(endpointId)).waiting === 0);
    const counts = new LoadBalancerRequestCounts(lb.h.redis, lb.h.config.REDIS_PREFIX);
    await pollUntil(async () => (await counts.read(endpointId)).completed === 1);
    expect(await counts.read(endpointId)).toEqual({ completed: 1, failed: 0 });
  });

  it('gives up a waiting request whose client leaves, holding nothing for it', async () => {
    const { accountId, secret } = await lb.h.accountWithKey();
    const endpointId = await lb.endpoint(accountId);
    const traffic = new LoadBalancerTraffic(lb.h.redis, lb.h.config.REDIS_PREFIX);
    const call = httpRequest({
      host: '127.0.0.1',
      port: lb.port,
      path: '/generate',
      headers: { ...bearer(secret), host: lbHost(endpointId) },
    });
    call.on('error', () => undefined);
    call.end();
    await pollUntil(async () => (await traffic.view(endpointId)).waiting === 1);
    call.destroy();
    await pollUntil(async () => (await traffic.view(endpointId)).waiting === 0);

    leftWorker = await startLbWorker('after');
    await lb.addWorker(endpointId, leftWorker);
    const served = await lbCall(lb.port, {
      host: lbHost(endpointId),
      method: 'POST',
      path: '/generate',
      headers: { ...bearer(secret), 'content-type': 'application/json' },
      body: '{"prompt":"next"}',
    });
    expect(served.json()).toMatchObject({ worker: 'after' });
    expect(leftWorker.served).toEqual(['/generate']);
    const counts = new LoadBalancerRequestCounts(lb.h.redis, lb.h.config.REDIS_PREFIX);
    await pollUntil(async () => (await counts.read(endpointId)).completed === 1);
    expect(await counts.read(endpointId)).toEqual({ completed: 1, failed: 0 });
    // The request given up left no request in flight on the worker (a leak would keep it at 1).
    await pollUntil(async () => (await traffic.view(endpointId)).totalInFlight === 0);
  });

  it('closes the WebSockets it serves when the job-router shuts down', async () => {
    const { accountId, secret } = await lb.h.accountWithKey();
    const endpointId = await lb.endpoint(accountId);
    socketWorker = await startLbWorker('socket');
    await lb.addWorker(endpointId, socketWorker);
    const socket = new WebSocket(`ws://127.0.0.1:${lb.port}/ws`, {
      headers: { ...bearer(secret), host: lbHost(endpointId) },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const socketClosed = new Promise((resolve) => socket.once('close', resolve));
    closed = true;
    await lb.h.close();
    await socketClosed;
    const opened = socketWorker;
    await pollUntil(() => opened.openSockets() === 0);
  });
});
