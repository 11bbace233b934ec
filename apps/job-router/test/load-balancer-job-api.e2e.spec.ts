// The job API beside a load-balancing endpoint: its job routes answer 409 saying where its requests go (it takes no
// jobs), and /health counts its requests in place of jobs, with its workers as the scheduler publishes them.
import { WorkerStateStore } from '@runplane/endpoints';
import { LoadBalancerRequestCounts, LoadBalancerTraffic } from '@runplane/jobs';
import { createRedis, type Redis } from '@runplane/queue';
import { TEST_REDIS_URL } from '@runplane/testing';
import { bearer } from './harness';
import { type LbHarness, startLbHarness } from './load-balancer-setup';

let lb: LbHarness;
let prefixed: Redis;
let owner: { accountId: string; secret: string };

beforeAll(async () => {
  lb = await startLbHarness('lb-job-api');
  owner = await lb.h.accountWithKey();
  prefixed = createRedis(TEST_REDIS_URL, { keyPrefix: lb.h.config.REDIS_PREFIX });
});

afterAll(async () => {
  prefixed?.disconnect();
  await lb.h.close();
});

const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
  lb.h.inject({ method, url, headers: bearer(owner.secret), ...(payload ? { payload } : {}) });

describe('job API routes of a load-balancing endpoint', () => {
  it('answer 409 saying the endpoint is load-balancing and where its requests go', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const message =
      `Endpoint ${endpointId} is a load-balancing endpoint: it takes no jobs. ` +
      `Send HTTP requests to its workers at https://${endpointId}.lb.test/<path>`;
    const routes: Array<['GET' | 'POST', string, object?]> = [
      ['POST', `/v2/${endpointId}/run`, { input: { prompt: 'hi' } }],
      ['POST', `/v2/${endpointId}/runsync`, { input: { prompt: 'hi' } }],
      ['GET', `/v2/${endpointId}/status/job-1`],
      ['GET', `/v2/${endpointId}/stream/job-1`],
      ['POST', `/v2/${endpointId}/cancel/job-1`],
      ['POST', `/v2/${endpointId}/retry/job-1`],
      ['POST', `/v2/${endpointId}/purge-queue`],
    ];
    for (const [method, url, payload] of routes) {
      const res = await call(method, url, payload);
      expect({ url, status: res.statusCode, body: res.json() }).toEqual({
        url,
        status: 409,
        body: expect.objectContaining({ error: message }),
      });
    }
    expect(await lb.h.redis.keys(`${lb.h.config.REDIS_PREFIX}jobs:${endpointId}:job:*`)).toEqual([]);
  });

  it("another account's load-balancing endpoint stays unknown (404)", async () => {
    const stranger = await lb.h.accountWithKey();
    const endpointId = await lb.endpoint(stranger.accountId);
    expect((await call('POST', `/v2/${endpointId}/run`, { input: {} })).statusCode).toBe(404);
  });
});

describe('/health of a load-balancing endpoint', () => {
  it('counts requests in place of jobs and the workers the scheduler published', async () => {
    const endpointId = await lb.endpoint(owner.accountId);
    const prefix = lb.h.config.REDIS_PREFIX;
    await new LoadBalancerTraffic(lb.h.redis, prefix).publish(endpointId, 'router-a', {
      at: Date.now(),
      waiting: 2,
      inFlight: { w1: 3, w2: 1 },
      requestsPerSecond: 4,
    });
    await new LoadBalancerRequestCounts(lb.h.redis, prefix).add(endpointId, { completed: 7, failed: 1 });
    await new WorkerStateStore(prefixed).replace(endpointId, [
      { workerId: 'w1', state: 'running' },
      { workerId: 'w2', state: 'running' },
      { workerId: 'w3', state: 'idle' },
      { workerId: 'w4', state: 'initializing' },
    ]);
    const res = await call('GET', `/v2/${endpointId}/health`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      jobs: { completed: 7, failed: 1, inProgress: 4, inQueue: 2, retried: 0 },
      workers: { idle: 1, running: 2, initializing: 1, throttled: 0, unhealthy: 0 },
    });
  });

  it('a queue endpoint still counts its jobs', async () => {
    const endpointId = await lb.h.endpoint(owner.accountId);
    expect((await call('POST', `/v2/${endpointId}/run`, { input: { n: 1 } })).statusCode).toBe(200);
    expect((await call('GET', `/v2/${endpointId}/health`)).json()).toMatchObject({ jobs: { inQueue: 1 } });
  });
});
