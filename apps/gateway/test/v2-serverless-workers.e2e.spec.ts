import { newId } from '@runplane/db';
import { WorkerStateStore } from '@runplane/endpoints';
import { REDIS_CLIENT } from '@runplane/http';
import type { Redis } from '@runplane/queue';
import { type Caller, startServerlessWorld } from './v2-serverless-fixture';

describe('v2 /serverless/{id}/workers and /releases', () => {
  let world: Awaited<ReturnType<typeof startServerlessWorld>>;
  let tenant: Caller;
  let states: WorkerStateStore;

  const worker = (endpointId: string, fields: Record<string, unknown>) =>
    world.gw.db.pod.create({
      data: {
        id: newId(),
        accountId: tenant.accountId,
        endpointId,
        image: 'acme/worker:1',
        gpuTypeId: 'NVIDIA GeForce RTX 4090',
        gpuCount: 1,
        dataCenterId: 'EU-RO-1',
        ...fields,
      },
    });

  beforeAll(async () => {
    world = await startServerlessWorld('v2-serverless-workers');
    ({ tenant } = world);
    states = new WorkerStateStore(world.gw.app.get<Redis>(REDIS_CLIENT));
  });
  afterAll(() => world.gw.close());

  it('gives why queued jobs wait, as the scheduler published it, and each worker’s cold start by phase', async () => {
    const endpoint = await world.create(tenant, {});
    const coldStart = {
      placed: '2026-11-24T12:00:00.000Z',
      scheduled: '2026-11-24T12:00:01.000Z',
      imagePulled: '2026-11-24T12:00:09.000Z',
    };
    const starting = await worker(endpoint.id, { coldStart });
    const waiting = {
      code: 'WORKERS_STARTING' as const,
      message: '1 worker(s) starting: image pulled, starting the container',
      phase: 'imagePulled' as const,
      at: '2026-11-24T12:00:10.000Z',
    };
    await states.replace(endpoint.id, [{ workerId: starting.id, state: 'initializing' }], waiting);
    const { status, body } = await world.call(tenant, 'GET', `/v2/serverless/${endpoint.id}/workers`);
    expect(status).toBe(200);
    expect(body.waitingReason).toEqual(waiting);
    expect(body.workers).toEqual([expect.objectContaining({ id: starting.id, status: 'INITIALIZING', coldStart })]);
    // v1 reads the same: the endpoint with its workers, each worker Pod with its cold start.
    const v1 = await world.call(tenant, 'GET', `/v1/endpoints/${endpoint.id}?includeWorkers=true`);
    expect(v1.status).toBe(200);
    expect(v1.body.waitingReason).toEqual(waiting);
    expect(v1.body.workers).toEqual([expect.objectContaining({ id: starting.id, coldStart })]);
    await states.replace(endpoint.id, [{ workerId: starting.id, state: 'idle' }]);
    const { body: idle } = await world.call(tenant, 'GET', `/v2/serverless/${endpoint.id}/workers`);
    expect(idle).not.toHaveProperty('waitingReason');
  });

  it('lists active workers with their state, version, placement and why an unhealthy or throttled one waits', async () => {
    const endpoint = await world.create(tenant, {});
    const startedAt = new Date(Date.now() - 90_000);
    const busy = await worker(endpoint.id, { lastStartedAt: startedAt });
    const crashed = await worker(endpoint.id, { lastStartedAt: startedAt });
    const fresh = await worker(endpoint.id, {});
    await worker(endpoint.id, { desiredStatus: 'EXITED' });
    await states.replace(endpoint.id, [
      { workerId: busy.id, state: 'running' },
      { workerId: crashed.id, state: 'unhealthy', reason: 'CrashLoopBackOff after 3 restarts (exit code 1)' },
      { workerId: 'throttled-1', state: 'throttled', reason: 'no machine with a free NVIDIA GeForce RTX 4090' },
    ]);
    const { status, body } = await world.call(tenant, 'GET', `/v2/serverless/${endpoint.id}/workers`);
    expect(status).toBe(200);
    expect(body.summary).toEqual({ running: 1, idle: 0, initializing: 1, throttled: 1, unhealthy: 1, total: 4 });
    expect(body.endpointVersion).toBe(0);
    const byId = new Map(body.workers.map((w: { id: string }) => [w.id, w]));
    expect(byId.get(busy.id)).toEqual({
      id: busy.id,
      status: 'RUNNING',
      isStale: false,
      version: 0,
      gpuCount: 1,
      image: 'acme/worker:1',
      uptimeSeconds: expect.any(Number),
      gpuTypeId: 'NVIDIA GeForce RTX 4090',
      dataCenterId: 'EU-RO-1',
      startedAt: startedAt.toISOString(),
    });
    expect((byId.get(busy.id) as { uptimeSeconds: number }).uptimeSeconds).toBeGreaterThanOrEqual(90);
    expect(byId.get(crashed.id)).toMatchObject({ status: 'UNHEALTHY', reason: expect.stringContaining('CrashLoop') });
    expect(byId.get(fresh.id)).toMatchObject({ status: 'INITIALIZING', uptimeSeconds: null, startedAt: null });
    expect(byId.get('throttled-1')).toMatchObject({
      status: 'THROTTLED',
      reason: expect.stringContaining('no machine'),
    });
  });

  it('records a release per version with what changed, whichever API changed it, and the rollout', async () => {
    const endpoint = await world.create(tenant, { env: { MODEL: 'a' } });
    await worker(endpoint.id, { slsVersion: 0 });
    await world.call(tenant, 'PATCH', `/v2/serverless/${endpoint.id}`, { image: 'acme/worker:2', workers: { max: 6 } });
    const bound = (await world.call(tenant, 'GET', `/v1/endpoints/${endpoint.id}`)).body.templateId;
    // An edit of the template through v1 rolls the endpoint too.
    await world.call(tenant, 'PATCH', `/v1/templates/${bound}`, { env: { MODEL: 'b' } });
    await worker(endpoint.id, { slsVersion: 2 });

    const { status, body } = await world.call(tenant, 'GET', `/v2/serverless/${endpoint.id}/releases`);
    expect(status).toBe(200);
    expect(body.endpointVersion).toBe(2);
    expect(body.rollout).toEqual({ inProgress: true, workersOnLatest: 1, workersTotal: 2, percentOnLatest: 50 });
    expect(body.releases.map((r: { version: number }) => r.version)).toEqual([2, 1, 0]);
    const [latest, image, first] = body.releases;
    expect(latest).toEqual({
      id: expect.stringMatching(/^[a-f0-9]{14}$/),
      version: 2,
      source: 'MANUAL',
      buildId: null,
      createdByUserId: null,
      workerCount: 1,
      createdAt: expect.any(String),
      diff: [{ field: 'template.env', old: { MODEL: 'a' }, new: { MODEL: 'b' } }],
    });
    expect(image.diff).toEqual([
      { field: 'template.imageName', old: 'acme/worker:1', new: 'acme/worker:2' },
      { field: 'workersMax', old: 3, new: 6 },
    ]);
    expect(first.workerCount).toBe(1);
    expect(first.diff).toContainEqual({ field: 'type', old: null, new: 'QUEUE' });

    const quiet = await world.create(tenant, {
      type: 'LOAD_BALANCER',
      scaling: { type: 'REQUEST_COUNT', requestCount: 2 },
    });
    const { body: none } = await world.call(tenant, 'GET', `/v2/serverless/${quiet.id}/releases`);
    expect(none.rollout).toEqual({ inProgress: false, workersOnLatest: 0, workersTotal: 0, percentOnLatest: 0 });
    expect(none.releases[0].diff).toContainEqual({ field: 'type', old: null, new: 'LOAD_BALANCER' });
    await world.expectProblem(world.call(tenant, 'GET', '/v2/serverless/nope/releases'), 404);
    await world.expectProblem(world.call(tenant, 'GET', '/v2/serverless/nope/workers'), 404);
  });
});
