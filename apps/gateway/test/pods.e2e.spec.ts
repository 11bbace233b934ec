import { seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('v1 /pods: the user walk-through', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };

  beforeAll(async () => {
    gw = await startGateway('pods');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey('ALL');
  });
  afterAll(() => gw.close());

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, secret = owner.secret) =>
    gw.inject({ method, url: `/v1${url}`, headers: bearer(secret), ...(payload ? { payload } : {}) });

  it('template → volume → registry auth → create → stop → start → restart → reset → update → delete', async () => {
    const template = (
      await call('POST', '/templates', {
        name: 'jupyter',
        imageName: 'runpod/pytorch:2.1.0',
        ports: ['8888/http', '22/tcp'],
        env: { FROM_TEMPLATE: 'yes', SHARED: 'template' },
        dockerStartCmd: ['jupyter', 'lab'],
        containerDiskInGb: 40,
        volumeInGb: 10,
      })
    ).json() as { id: string };
    const volume = (
      await call('POST', '/networkvolumes', { name: 'data', size: 100, dataCenterId: 'EU-RO-1' })
    ).json() as { id: string };
    const auth = (
      await call('POST', '/containerregistryauth', { name: 'hub', username: 'u', password: 'p' })
    ).json() as { id: string };

    const created = await call('POST', '/pods', {
      name: 'trainer',
      templateId: template.id,
      gpuTypeIds: ['NVIDIA A40', 'NVIDIA GeForce RTX 4090'],
      gpuCount: 2,
      cloudType: 'COMMUNITY',
      dataCenterIds: ['EU-RO-1', 'US-TX-3'],
      networkVolumeId: volume.id,
      containerRegistryAuthId: auth.id,
      env: { SHARED: 'request' },
      volumeInGb: 30,
    });
    expect(created.statusCode).toBe(201);
    const pod = created.json() as PodDto;
    expect(pod).toEqual({
      id: expect.any(String),
      name: 'trainer',
      image: 'runpod/pytorch:2.1.0',
      imageName: 'runpod/pytorch:2.1.0',
      desiredStatus: 'RUNNING',
      locked: false,
      interruptible: false,
      computeType: 'GPU',
      cloudType: 'COMMUNITY',
      gpu: expect.objectContaining({
        id: 'NVIDIA A40',
        count: 2,
        displayName: 'A40',
        communityPrice: 0.35,
        securePrice: 0.4,
      }),
      gpuTypeId: 'NVIDIA A40',
      gpuCount: 2,
      cpuFlavorId: null,
      vcpuCount: 4,
      memoryInGb: 16,
      costPerHr: 0.7,
      adjustedCostPerHr: 0.7,
      containerDiskInGb: 40,
      volumeInGb: 30,
      volumeMountPath: '/workspace',
      volumeEncrypted: false,
      networkVolumeId: volume.id,
      containerRegistryAuthId: auth.id,
      templateId: template.id,
      endpointId: null,
      aiApiId: null,
      slsVersion: 0,
      consumerUserId: owner.accountId,
      machineId: null,
      dataCenterId: 'EU-RO-1',
      ports: ['8888/http', '22/tcp'],
      env: { FROM_TEMPLATE: 'yes', SHARED: 'request' },
      dockerEntrypoint: [],
      dockerStartCmd: ['jupyter', 'lab'],
      publicIp: null,
      portMappings: null,
      lastStartedAt: expect.any(String),
      lastStatusChange: expect.stringMatching(/^Rented by User: /),
      createdAt: expect.any(String),
    });
    expect((await call('GET', `/pods/${pod.id}`)).json()).toEqual(pod);

    const stopped = await call('POST', `/pods/${pod.id}/stop`);
    expect(stopped.statusCode).toBe(200);
    expect(stopped.json()).toEqual({
      ...pod,
      desiredStatus: 'EXITED',
      lastStatusChange: expect.stringMatching(/^Stopped by User: /),
    });

    const started = await call('POST', `/pods/${pod.id}/start`);
    expect(started.statusCode).toBe(200);
    const startedPod = started.json() as PodDto;
    expect(startedPod).toEqual({
      ...pod,
      lastStartedAt: expect.any(String),
      lastStatusChange: expect.stringMatching(/^Started by User: /),
    });
    expect(Date.parse(startedPod.lastStartedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(pod.lastStartedAt ?? ''));

    const generation = async () => (await gw.db.pod.findUniqueOrThrow({ where: { id: pod.id } })).generation;
    expect(await generation()).toBe(1);
    const restarted = await call('POST', `/pods/${pod.id}/restart`);
    expect(restarted.statusCode).toBe(200);
    expect(restarted.json()).toMatchObject({
      id: pod.id,
      desiredStatus: 'RUNNING',
      lastStatusChange: expect.stringMatching(/^Restarted by User: /),
    });
    expect(await generation()).toBe(2);

    const reset = await call('POST', `/pods/${pod.id}/reset`);
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toMatchObject({
      id: pod.id,
      desiredStatus: 'RUNNING',
      lastStatusChange: expect.stringMatching(/^Reset by User: /),
    });
    expect(await generation()).toBe(3);

    const renamed = await call('PATCH', `/pods/${pod.id}`, { name: 'renamed', locked: true });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'renamed', locked: true, image: 'runpod/pytorch:2.1.0' });
    expect(await generation()).toBe(3);

    const updated = await call('POST', `/pods/${pod.id}/update`, {
      imageName: 'alpine:3',
      env: { ONLY: 'this' },
      locked: false,
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toEqual({
      ...pod,
      name: 'renamed',
      image: 'alpine:3',
      imageName: 'alpine:3',
      env: { ONLY: 'this' },
      lastStartedAt: expect.any(String),
      lastStatusChange: expect.stringMatching(/^Reset for update by User: /),
    });
    expect(await generation()).toBe(4);
    // An empty id detaches the registry auth, as null does.
    const detached = await call('PATCH', `/pods/${pod.id}`, { containerRegistryAuthId: '' });
    expect(detached.statusCode).toBe(200);
    expect(detached.json()).toMatchObject({ containerRegistryAuthId: null });

    const deleted = await call('DELETE', `/pods/${pod.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call('GET', `/pods/${pod.id}`)).statusCode).toBe(404);
    expect((await call('DELETE', `/pods/${pod.id}`)).statusCode).toBe(404);
  });

  it('answers requests that declare an application/json body and send none, as runpodctl does', async () => {
    // runpodctl sets Content-Type: application/json on its bodiless POSTs and on DELETE.
    const bodiless = (method: 'POST' | 'DELETE', url: string) =>
      gw.inject({
        method,
        url: `/v1${url}`,
        headers: { ...bearer(owner.secret), 'content-type': 'application/json' },
        payload: '',
      });
    const pod = (await call('POST', '/pods', { imageName: 'alpine:3', gpuTypeIds: ['NVIDIA L4'] })).json() as PodDto;
    const expected = { stop: 'EXITED', start: 'RUNNING', restart: 'RUNNING', reset: 'RUNNING' };
    for (const [action, desiredStatus] of Object.entries(expected)) {
      const res = await bodiless('POST', `/pods/${pod.id}/${action}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: pod.id, desiredStatus });
    }
    // A route that needs a body says so in the API's own error shape.
    const create = await bodiless('POST', '/pods');
    expect(create.statusCode).toBe(400);
    expect(create.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String) });
    expect((await bodiless('DELETE', `/pods/${pod.id}`)).statusCode).toBe(204);
    expect((await call('GET', `/pods/${pod.id}`)).statusCode).toBe(404);
  });

  it('locked Pods refuse stop, reset and reset-causing updates with 400', async () => {
    const pod = (
      await call('POST', '/pods', { imageName: 'alpine:3', locked: true, gpuTypeIds: ['NVIDIA L4'] })
    ).json() as PodDto;
    for (const action of ['stop', 'reset']) {
      const res = await call('POST', `/pods/${pod.id}/${action}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/^locked: the Pod is locked/);
    }
    const update = await call('PATCH', `/pods/${pod.id}`, { imageName: 'alpine:4' });
    expect(update.statusCode).toBe(400);
    expect(update.json().message).toBe('locked: the Pod is locked; changing image would reset it; unlock it first');
    expect((await call('GET', `/pods/${pod.id}`)).json()).toMatchObject({
      desiredStatus: 'RUNNING',
      image: 'alpine:3',
      locked: true,
    });
    expect((await call('POST', `/pods/${pod.id}/restart`)).statusCode).toBe(200);
    expect((await call('DELETE', `/pods/${pod.id}`)).statusCode).toBe(204);
  });

  it('creates CPU Pods priced per vCPU, interruptible Pods at spot prices, and applies defaults', async () => {
    const cpu = (
      await call('POST', '/pods', { imageName: 'alpine:3', computeType: 'CPU', cpuFlavorIds: ['cpu3g'], vcpuCount: 4 })
    ).json();
    expect(cpu).toMatchObject({
      computeType: 'CPU',
      gpu: null,
      gpuTypeId: null,
      gpuCount: 0,
      cpuFlavorId: 'cpu3g',
      vcpuCount: 4,
      memoryInGb: 16,
      costPerHr: 0.16,
      name: 'my pod',
      ports: ['8888/http', '22/tcp'],
      containerDiskInGb: 50,
      volumeInGb: 20,
      env: {},
      dataCenterId: null,
    });
    const spot = (
      await call('POST', '/pods', {
        imageName: 'alpine:3',
        gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
        interruptible: true,
      })
    ).json();
    expect(spot).toMatchObject({
      interruptible: true,
      costPerHr: 0.35,
      gpu: { id: 'NVIDIA GeForce RTX 4090', count: 1 },
    });
    const anyGpu = (
      await call('POST', '/pods', { imageName: 'alpine:3', ports: '8888/http,22/tcp', minCudaVersion: '12.8' })
    ).json();
    expect(anyGpu).toMatchObject({ computeType: 'GPU', gpu: { count: 1 }, ports: ['8888/http', '22/tcp'] });
    const row = await gw.db.pod.findUniqueOrThrow({ where: { id: (anyGpu as PodDto).id } });
    expect(row.allowedCudaVersions).toEqual(['13.0', '12.9', '12.8']);
  });
});
