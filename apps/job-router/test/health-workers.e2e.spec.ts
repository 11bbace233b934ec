// /health adds the scheduler's view of workers that do not serve jobs yet (initializing, throttled, unhealthy) to the
// idle / running counts workers report by heartbeat.
import { WorkerStateStore } from '@runplane/endpoints';
import { REDIS_CLIENT } from '@runplane/http';
import type { Redis } from '@runplane/queue';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

describe('job-router /health worker states', () => {
  let h: JobRouterHarness;

  beforeAll(async () => {
    h = await startJobRouter('jr-health-workers');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('counts initializing, throttled and unhealthy workers published by the scheduler, per endpoint', async () => {
    const account = await h.accountWithKey();
    const endpointId = await h.endpoint(account.accountId);
    const otherEndpointId = await h.endpoint(account.accountId);
    // The scheduler publishes through the deployment's prefixed Redis client, as the job-router reads it.
    const states = new WorkerStateStore(h.app.get<Redis>(REDIS_CLIENT));
    await states.replace(endpointId, [
      { workerId: 'w-init-1', state: 'initializing' },
      { workerId: 'w-init-2', state: 'initializing' },
      { workerId: 'w-throttled', state: 'throttled', reason: 'no capacity for NVIDIA GeForce RTX 4090' },
      { workerId: 'w-crash', state: 'unhealthy', reason: 'exit code 1 (CrashLoopBackOff)' },
      { workerId: 'w-idle', state: 'idle' },
    ]);
    // One worker pings: it is idle by heartbeat.
    const ping = await h.inject({ method: 'GET', url: `/v2/${endpointId}/ping/w-idle`, headers: raw(await h.workerToken(endpointId, 'w-idle')) });
    expect(ping.statusCode).toBe(200);

    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(account.secret) });
    expect(health.statusCode).toBe(200);
    expect(health.json().workers).toEqual({ idle: 1, running: 0, initializing: 2, throttled: 1, unhealthy: 1 });

    const other = await h.inject({ method: 'GET', url: `/v2/${otherEndpointId}/health`, headers: bearer(account.secret) });
    expect(other.json().workers).toEqual({ idle: 0, running: 0, initializing: 0, throttled: 0, unhealthy: 0 });
  });
});
