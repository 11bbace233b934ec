import { seedCatalog } from '@runplane/catalog';
import type { PodDto } from '@runplane/contracts';
import { bearer, type GatewayHarness, startGateway } from './harness';

describe('v1 /pods: filters, include flags, workers, bad input and tenancy', () => {
  let gw: GatewayHarness;
  let owner: { accountId: string; secret: string };
  let other: { accountId: string; secret: string };
  let gpuPod: PodDto;
  let cpuPod: PodDto;
  let worker: { id: string; endpointId: string };
  let ids: { template: string; volume: string; machine: string; plan: string };

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, secret = owner.secret) =>
    gw.inject({ method, url: `/v1${url}`, headers: bearer(secret), ...(payload ? { payload } : {}) });
  const listIds = async (query: string, secret = owner.secret): Promise<string[]> => {
    const res = await call('GET', `/pods?${query}`, undefined, secret);
    expect(res.statusCode).toBe(200);
    return (res.json() as PodDto[]).map((pod) => pod.id);
  };

  beforeAll(async () => {
    gw = await startGateway('pods-queries');
    await seedCatalog(gw.db);
    owner = await gw.accountWithKey('ALL');
    other = await gw.accountWithKey('ALL');
    const template = (await call('POST', '/templates', { name: 't', imageName: 'img:t' })).json() as { id: string };
    const volume = (await call('POST', '/networkvolumes', { name: 'v', size: 10, dataCenterId: 'EU-RO-1' })).json() as {
      id: string;
    };
    gpuPod = (
      await call('POST', '/pods', {
        name: 'alpha',
        templateId: template.id,
        imageName: 'img:a',
        gpuTypeIds: ['NVIDIA A40'],
        networkVolumeId: volume.id,
      })
    ).json() as PodDto;
    cpuPod = (
      await call('POST', '/pods', {
        name: 'beta',
        imageName: 'img:b',
        computeType: 'CPU',
        cpuFlavorIds: ['cpu3c'],
        dataCenterIds: ['US-TX-3'],
      })
    ).json() as PodDto;
    await call('POST', `/pods/${cpuPod.id}/stop`);

    const machine = await gw.db.machine.create({
      data: {
        id: 'machine-1',
        name: 'node-1',
        gpuTypeId: 'NVIDIA A40',
        gpuCount: 8,
        gpuAvailable: 7,
        cpuCount: 64,
        dataCenterId: 'EU-RO-1',
        supportPublicIp: true,
      },
    });
    await gw.db.pod.update({ where: { id: gpuPod.id }, data: { machineId: machine.id } });
    const plan = await gw.db.savingsPlan.create({
      data: {
        id: 'plan-1',
        accountId: owner.accountId,
        podId: gpuPod.id,
        gpuTypeId: 'NVIDIA A40',
        costPerHr: 0.25,
        startTime: new Date(Date.now() - 86_400_000),
        endTime: new Date(Date.now() + 86_400_000),
      },
    });
    const endpoint = await gw.db.endpoint.create({
      data: { id: 'endpoint-1', accountId: owner.accountId, name: 'ep', templateId: template.id },
    });
    const row = await gw.db.pod.create({
      data: {
        id: 'worker-1',
        accountId: owner.accountId,
        image: 'img:t',
        endpointId: endpoint.id,
        slsVersion: 3,
        templateId: template.id,
      },
    });
    worker = { id: row.id, endpointId: endpoint.id };
    ids = { template: template.id, volume: volume.id, machine: machine.id, plan: plan.id };
  });
  afterAll(() => gw.close());

  it('lists bare arrays and honours every filter (array filters repeat their key)', async () => {
    expect(await listIds('')).toEqual([gpuPod.id, cpuPod.id]);
    expect(await listIds('computeType=CPU')).toEqual([cpuPod.id]);
    expect(await listIds('computeType=GPU')).toEqual([gpuPod.id]);
    expect(await listIds('cpuFlavorId=cpu3c&cpuFlavorId=cpu5c')).toEqual([cpuPod.id]);
    expect(await listIds('cpuFlavorId=cpu5c')).toEqual([]);
    expect(await listIds('dataCenterId=EU-RO-1')).toEqual([gpuPod.id]);
    expect(await listIds('dataCenterId=EU-RO-1&dataCenterId=US-TX-3')).toEqual([gpuPod.id, cpuPod.id]);
    expect(await listIds('desiredStatus=EXITED')).toEqual([cpuPod.id]);
    expect(await listIds('desiredStatus=RUNNING')).toEqual([gpuPod.id]);
    expect(await listIds('desiredStatus=TERMINATED')).toEqual([]);
    expect(
      await listIds(`gpuTypeId=${encodeURIComponent('NVIDIA A40')}&gpuTypeId=${encodeURIComponent('NVIDIA L4')}`),
    ).toEqual([gpuPod.id]);
    expect(await listIds(`id=${cpuPod.id}`)).toEqual([cpuPod.id]);
    expect(await listIds('imageName=img:b')).toEqual([cpuPod.id]);
    expect(await listIds('name=alpha')).toEqual([gpuPod.id]);
    expect(await listIds(`networkVolumeId=${ids.volume}`)).toEqual([gpuPod.id]);
    expect(await listIds(`templateId=${ids.template}`)).toEqual([gpuPod.id]);
    expect(await listIds('name=alpha&computeType=CPU')).toEqual([]);
  });

  it('lists serverless workers only with includeWorkers=true, with endpointId, aiApiId and slsVersion', async () => {
    expect(await listIds(`endpointId=${worker.endpointId}`)).toEqual([]);
    expect(await listIds(`endpointId=${worker.endpointId}&includeWorkers=true`)).toEqual([worker.id]);
    expect(await listIds('includeWorkers=true')).toEqual([gpuPod.id, cpuPod.id, worker.id]);
    const listed = (await call('GET', '/pods?includeWorkers=true&id=worker-1')).json() as PodDto[];
    expect(listed[0]).toMatchObject({
      id: worker.id,
      endpointId: worker.endpointId,
      aiApiId: worker.endpointId,
      slsVersion: 3,
    });
    expect((await call('GET', `/pods/${worker.id}`)).statusCode).toBe(404);
    expect((await call('GET', `/pods/${worker.id}?includeWorkers=true`)).json()).toMatchObject({
      id: worker.id,
      aiApiId: worker.endpointId,
    });
    const stop = await call('POST', `/pods/${worker.id}/stop`);
    expect(stop.statusCode).toBe(400);
    expect(stop.json().message).toMatch(/serverless worker of endpoint endpoint-1/);
  });

  it('adds machine, network volume, savings plans and template only when asked', async () => {
    const plain = (await call('GET', `/pods/${gpuPod.id}`)).json() as PodDto;
    for (const key of ['machine', 'networkVolume', 'savingsPlans', 'template']) expect(plain).not.toHaveProperty(key);
    expect(plain).toMatchObject({ costPerHr: 0.4, adjustedCostPerHr: 0.25, machineId: ids.machine });

    const all = 'includeMachine=true&includeNetworkVolume=true&includeSavingsPlans=true&includeTemplate=true';
    const full = (await call('GET', `/pods/${gpuPod.id}?${all}`)).json() as PodDto;
    expect(full.machine).toMatchObject({
      id: ids.machine,
      gpuTypeId: 'NVIDIA A40',
      gpuDisplayName: 'A40',
      gpuAvailable: 7,
      cpuCount: 64,
      dataCenterId: 'EU-RO-1',
      supportPublicIp: true,
      gpuType: { id: 'NVIDIA A40', count: 8, securePrice: 0.4 },
    });
    expect(full.networkVolume).toEqual({ id: ids.volume, name: 'v', size: 10, dataCenterId: 'EU-RO-1' });
    expect(full.savingsPlans).toEqual([
      {
        id: ids.plan,
        podId: gpuPod.id,
        gpuTypeId: 'NVIDIA A40',
        costPerHr: 0.25,
        startTime: expect.any(String),
        endTime: expect.any(String),
      },
    ]);
    expect(full.template).toMatchObject({ id: ids.template, name: 't', imageName: 'img:t' });

    const cpu = (await call('GET', `/pods/${cpuPod.id}?${all}`)).json() as PodDto;
    expect(cpu).toMatchObject({ machine: null, networkVolume: null, savingsPlans: [], template: null });
    const listed = (await call('GET', `/pods?${all}&id=${gpuPod.id}`)).json() as PodDto[];
    expect(listed[0]?.machine?.id).toBe(ids.machine);
    expect(listed[0]?.template).toMatchObject({ id: ids.template });
  });

  it('answers bad input with 400 naming the field', async () => {
    const bad: [object, RegExp][] = [
      [{ imageName: 'a', bogus: 1 }, /^Unknown field: bogus/],
      [{ imageName: 'a', name: 'x'.repeat(192) }, /^name: /],
      [{}, /^imageName: required unless templateId is given/],
      [
        { imageName: 'a', gpuTypeIds: ['NVIDIA A40', 'Imaginary GPU'] },
        /^gpuTypeIds\.1: unknown GPU type "Imaginary GPU"/,
      ],
      [
        { imageName: 'a', gpuTypeIds: ['NVIDIA H200'], cloudType: 'COMMUNITY' },
        /^gpuTypeIds: none of the GPU types is offered with 1 GPU in COMMUNITY cloud/,
      ],
      [{ imageName: 'a', gpuTypeIds: ['NVIDIA A40'], gpuCount: 9 }, /^gpuTypeIds: none/],
      [{ imageName: 'a', gpuCount: 0 }, /^gpuCount: /],
      [{ imageName: 'a', dataCenterIds: ['XX-1'] }, /^dataCenterIds\.0: unknown data center "XX-1"/],
      [{ imageName: 'a', computeType: 'CPU', cpuFlavorIds: ['cpu9z'] }, /^cpuFlavorIds\.0: unknown CPU flavor "cpu9z"/],
      [
        { imageName: 'a', computeType: 'CPU', cpuFlavorIds: ['cpu3c'], vcpuCount: 33 },
        /^vcpuCount: 33 vCPUs is not offered by cpu3c/,
      ],
      [{ imageName: 'a', computeType: 'TPU' }, /^computeType: /],
      [{ imageName: 'a', containerDiskInGb: 4001 }, /^containerDiskInGb: /],
      [{ imageName: 'a', ports: ['8888/ftp'] }, /^ports\.0: /],
      [{ imageName: 'a', env: { A: 1 } }, /^env\.A: /],
      [{ imageName: 'a', volumeMountPath: 'relative' }, /^volumeMountPath: /],
      [{ imageName: 7 }, /^imageName: /],
      [{ imageName: 'a\u0000b' }, /^imageName: must not contain NUL characters/],
      [{ imageName: 'a', env: { 'K\u0000': 'v' } }, /^env\.K.: must not contain NUL characters/],
      [{ imageName: 'a', networkVolumeId: '\u0000' }, /^networkVolumeId: must not contain NUL characters/],
    ];
    for (const [payload, message] of bad) {
      const res = await call('POST', '/pods', payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status: 400 });
      expect(res.json().message).toMatch(message);
    }
    const elsewhere = await call('POST', '/pods', {
      imageName: 'a',
      networkVolumeId: ids.volume,
      dataCenterIds: ['US-TX-3'],
    });
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().message).toBe(
      'networkVolumeId: the network volume is in EU-RO-1, which is not one of dataCenterIds (US-TX-3)',
    );
    const broken = await gw.inject({
      method: 'POST',
      url: '/v1/pods',
      headers: { ...bearer(owner.secret), 'content-type': 'application/json' },
      payload: '{"imageName":',
    });
    expect(broken.statusCode).toBe(400);
    for (const [method, url] of [
      ['GET', '/pods/%00'],
      ['POST', '/pods/%00/stop'],
      ['DELETE', '/pods/%00'],
    ] as const) {
      expect((await call(method, url)).statusCode).toBe(404);
    }
    for (const query of [
      'name=%00',
      'desiredStatus=BOGUS',
      'includeMachine=maybe',
      'computeType=TPU',
      `name=${'x'.repeat(192)}`,
    ]) {
      expect((await call('GET', `/pods?${query}`)).statusCode).toBe(400);
    }
    expect((await call('PATCH', `/pods/${gpuPod.id}`, { gpuCount: 2 })).statusCode).toBe(400);
    expect((await call('GET', `/pods/${encodeURIComponent("'; DROP TABLE pods;--")}`)).statusCode).toBe(404);
    expect(await gw.db.pod.count({ where: { accountId: owner.accountId } })).toBe(3);
  });

  it("answers 404 with no data for another account's Pods and references", async () => {
    const routes: ['GET' | 'POST' | 'PATCH' | 'DELETE', string, object?][] = [
      ['GET', `/pods/${gpuPod.id}`],
      ['GET', `/pods/${gpuPod.id}?includeWorkers=true&includeMachine=true`],
      ['PATCH', `/pods/${gpuPod.id}`, { name: 'stolen' }],
      ['POST', `/pods/${gpuPod.id}/update`, { name: 'stolen' }],
      ['POST', `/pods/${gpuPod.id}/start`],
      ['POST', `/pods/${gpuPod.id}/stop`],
      ['POST', `/pods/${gpuPod.id}/restart`],
      ['POST', `/pods/${gpuPod.id}/reset`],
      ['DELETE', `/pods/${gpuPod.id}`],
      ['POST', `/pods/${worker.id}/stop`],
    ];
    for (const [method, url, payload] of routes) {
      const res = await call(method, url, payload, other.secret);
      expect({ method, url, status: res.statusCode }).toEqual({ method, url, status: 404 });
      expect(res.json()).toMatchObject({ message: 'Pod not found' });
      expect(res.body).not.toContain('alpha');
    }
    expect(await listIds('includeWorkers=true', other.secret)).toEqual([]);
    expect(await listIds(`id=${gpuPod.id}`, other.secret)).toEqual([]);
    const refs: [object, string][] = [
      [{ imageName: 'a', networkVolumeId: ids.volume }, 'Network volume not found'],
      [{ templateId: ids.template }, 'Template not found'],
    ];
    const auth = (
      await call('POST', '/containerregistryauth', { name: 'mine', username: 'u', password: 'p' })
    ).json() as { id: string };
    refs.push([{ imageName: 'a', containerRegistryAuthId: auth.id }, 'Container registry auth not found']);
    for (const [payload, message] of refs) {
      const res = await call('POST', '/pods', payload, other.secret);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ message });
    }
    expect((await call('GET', `/pods/${gpuPod.id}`)).json()).toMatchObject({ name: 'alpha', desiredStatus: 'RUNNING' });
  });
});
