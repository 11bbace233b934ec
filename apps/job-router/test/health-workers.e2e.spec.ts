// /health adds the scheduler's view of workers that do not serve jobs yet (initializing, throttled, unhealthy) to the
// idle / running counts workers report by heartbeat.
import { WorkerStateStore } from '@runplane/endpoints';
import { REDIS_CLIENT } from '@runplane/http';
import { WorkerRetirement } from '@runplane/jobs';
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
    const ping = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/ping/w-idle`,
      headers: raw(await h.workerToken(endpointId, 'w-idle')),
    });
    expect(ping.statusCode).toBe(200);

    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(account.secret) });
    expect(health.statusCode).toBe(200);
    expect(health.json().workers).toEqual({ idle: 1, running: 0, initializing: 2, throttled: 1, unhealthy: 1 });

    const other = await h.inject({
      method: 'GET',
      url: `/v2/${otherEndpointId}/health`,
      headers: bearer(account.secret),
    });
    expect(other.json().workers).toEqual({ idle: 0, running: 0, initializing: 0, throttled: 0, unhealthy: 0 });
  });

  it('gives a queued job’s status, status-sync and /health the waiting reason the scheduler published, and drops it once the job runs', async () => {
    const account = await h.accountWithKey();
    const endpointId = await h.endpoint(account.accountId);
    const states = new WorkerStateStore(h.app.get<Redis>(REDIS_CLIENT));
    const waiting = {
      code: 'CRASH_LOOP' as const,
      message: 'Workers are crash-looping (2 in a row): Exit code 3',
      exitReason: 'Exit code 3',
      at: '2026-11-24T12:00:00.000Z',
    };
    await states.replace(endpointId, [{ workerId: 'w-crash', state: 'unhealthy', reason: 'Exit code 3' }], waiting);
    const headers = bearer(account.secret);
    const run = await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers, payload: { input: {} } });
    const jobId = run.json().id as string;
    // /run answers as RunPod's does: {id, status} only.
    expect(run.json()).toEqual({ id: jobId, status: 'IN_QUEUE' });
    const status = await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${jobId}`, headers });
    expect(status.json()).toMatchObject({ id: jobId, status: 'IN_QUEUE', waitingReason: waiting });
    const held = await h.inject({ method: 'GET', url: `/v2/${endpointId}/status-sync/${jobId}?wait=1000`, headers });
    expect(held.json()).toMatchObject({ id: jobId, status: 'IN_QUEUE', waitingReason: waiting });
    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers });
    expect(health.json().waitingReason).toEqual(waiting);
    expect(health.json().workers.unhealthy).toBe(1);

    const take = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/job-take/w-new`,
      headers: raw(await h.workerToken(endpointId, 'w-new')),
    });
    expect(take.json().id).toBe(jobId);
    const running = await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${jobId}`, headers });
    expect(running.json().status).toBe('IN_PROGRESS');
    expect(running.json()).not.toHaveProperty('waitingReason');
    const after = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers });
    expect(after.json()).not.toHaveProperty('waitingReason');
  });

  it('answers /metrics with the ids of the workers taking jobs and the worker counts, for the endpoint owner only', async () => {
    const account = await h.accountWithKey();
    const endpointId = await h.endpoint(account.accountId);
    await new WorkerStateStore(h.app.get<Redis>(REDIS_CLIENT)).replace(endpointId, [
      { workerId: 'w-starting', state: 'initializing' },
      { workerId: 'w-crash', state: 'unhealthy', reason: 'exit code 1' },
    ]);
    const idleKey = raw(await h.workerToken(endpointId, 'w-idle'));
    const busyKey = raw(await h.workerToken(endpointId, 'w-busy'));
    expect((await h.inject({ method: 'GET', url: `/v2/${endpointId}/ping/w-idle`, headers: idleKey })).statusCode).toBe(
      200,
    );
    // w-busy takes a job: it is running.
    const run = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: bearer(account.secret),
      payload: { input: {} },
    });
    expect(run.statusCode).toBe(200);
    const take = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/job-take/w-busy?job_in_progress=0`,
      headers: busyKey,
    });
    expect(take.json()).toMatchObject({ id: run.json().id });
    expect(
      (
        await h.inject({
          method: 'GET',
          url: `/v2/${endpointId}/ping/w-busy?job_id=${run.json().id}`,
          headers: busyKey,
        })
      ).statusCode,
    ).toBe(200);

    const metrics = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/metrics`,
      headers: bearer(account.secret),
    });
    expect(metrics.statusCode).toBe(200);
    const body = metrics.json() as { readyWorkers: string[]; workers: Record<string, number> };
    expect([...body.readyWorkers].sort()).toEqual(['w-busy', 'w-idle']);
    expect(body.workers).toEqual({ ready: 2, idle: 1, running: 1, initializing: 1, throttled: 0, unhealthy: 1 });

    const stranger = await h.accountWithKey();
    const hidden = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/metrics`,
      headers: bearer(stranger.secret),
    });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toHaveProperty('error');
  });

  it("drops a worker from the live workers when it reports a failed fitness check, as RunPod's worker SDK does before exiting, and tells the scheduler why", async () => {
    const account = await h.accountWithKey();
    const endpointId = await h.endpoint(account.accountId);
    const key = raw(await h.workerToken(endpointId, 'w-sick'));
    const workers = async () =>
      (await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(account.secret) })).json()
        .workers as Record<string, number>;
    expect(
      (await h.inject({ method: 'GET', url: `/v2/${endpointId}/ping/w-sick?runpod_version=1.12.0`, headers: key }))
        .statusCode,
    ).toBe(200);
    expect(await workers()).toMatchObject({ idle: 1 });
    const report = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/ping/w-sick?status=unhealthy&check=gpu&reason=${encodeURIComponent('RuntimeError: no CUDA device')}&runpod_version=1.12.0`,
      headers: key,
    });
    expect(report.statusCode).toBe(200);
    expect(await workers()).toMatchObject({ idle: 0, running: 0 });
    const metrics = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/metrics`,
      headers: bearer(account.secret),
    });
    expect(metrics.json().readyWorkers).toEqual([]);
    // The job engine's event stream carries the report to the scheduler (apps/scheduler/test/crash-loop.e2e.spec.ts).
    const events = await h.app.get<Redis>(REDIS_CLIENT).xrange('jobs:events', '-', '+');
    const reports = events
      .map(([, fields]) => fields)
      .filter((fields) => fields.includes('worker.unhealthy') && fields.includes(endpointId));
    expect(reports).toEqual([
      [
        'type',
        'worker.unhealthy',
        'endpointId',
        endpointId,
        'workerId',
        'w-sick',
        'reason',
        'Fitness check gpu failed: RuntimeError: no CUDA device',
      ],
    ]);
  });

  it('counts a worker the scheduler removed neither idle nor running from its removal on, though it pings until its process has stopped', async () => {
    const account = await h.accountWithKey();
    const endpointId = await h.endpoint(account.accountId);
    const retirement = new WorkerRetirement(h.redis, h.config.REDIS_PREFIX);
    const workers = async () =>
      (await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(account.secret) })).json()
        .workers as Record<string, number>;
    const ping = async (workerId: string) =>
      (await h.inject({ method: 'GET', url: `/v2/${endpointId}/ping/${workerId}`, headers: bearer(account.secret) }))
        .statusCode;
    expect(await ping('w-removed')).toBe(200);
    expect(await ping('w-kept')).toBe(200);
    expect(await workers()).toMatchObject({ idle: 2, running: 0 });

    expect(await retirement.retireIdle(endpointId, 'w-removed')).toBe(true);
    expect(await workers()).toMatchObject({ idle: 1, running: 0 });
    // An ALL key of the owner may act as any worker of the endpoint, so its pings are not refused: still not counted.
    expect(await ping('w-removed')).toBe(200);
    expect(await workers()).toMatchObject({ idle: 1, running: 0 });
    const metrics = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/metrics`,
      headers: bearer(account.secret),
    });
    expect(metrics.json()).toMatchObject({ readyWorkers: ['w-kept'], workers: { ready: 1, idle: 1, running: 0 } });
  });
});
