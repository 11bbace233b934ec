import type { EndpointDto, TemplateDto } from '@runplane/contracts';
import type { GatewayHarness } from './harness';
import { type Caller, endpointRequests, startEndpointsWorld } from './endpoints-fixture';

describe('v1 /endpoints', () => {
  let gw: GatewayHarness;
  let owner: Caller;
  let other: Caller;
  let template: TemplateDto;
  let otherTemplate: TemplateDto;
  const { call, ok, createEndpoint, rejected, volume } = endpointRequests(() => ({ gw, owner }));

  beforeAll(async () => {
    ({ gw, owner, other, template, otherTemplate } = await startEndpointsWorld('endpoints'));
  });
  afterAll(() => gw.close());

  it('creates a GPU endpoint with RunPod defaults', async () => {
    const created = await createEndpoint({ templateId: template.id });
    const dataCenters = await gw.db.dataCenter.findMany({ where: { listed: true }, orderBy: { id: 'asc' } });
    expect(created).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{14}$/),
      name: 'worker',
      userId: owner.accountId,
      templateId: template.id,
      version: 0,
      computeType: 'GPU',
      gpuTypeIds: [],
      gpuCount: 1,
      cpuFlavorIds: [],
      vcpuCount: 2,
      instanceIds: [],
      dataCenterIds: dataCenters.map((dc) => dc.id),
      networkVolumeIds: [],
      allowedCudaVersions: [],
      env: { MODEL: 'small' },
      executionTimeoutMs: 600000,
      idleTimeout: 5,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 4,
      workersMin: 0,
      workersMax: 3,
      flashboot: false,
      type: 'QUEUE',
      createdAt: expect.any(String),
    });
    expect(Date.parse(created.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${created.id}`)).toEqual(created);
  });

  it('walks create → get → PATCH → POST /update → delete with every field', async () => {
    const euVolume = await volume(owner, 'EU-RO-1');
    const usVolume = await volume(owner, 'US-TX-3');
    const created = await createEndpoint({
      templateId: template.id,
      name: 'every field',
      computeType: 'GPU',
      gpuTypeIds: ['NVIDIA H100 80GB HBM3', 'NVIDIA GeForce RTX 4090'],
      gpuCount: 2,
      dataCenterIds: ['EU-RO-1', 'US-TX-3'],
      networkVolumeId: euVolume,
      networkVolumeIds: [usVolume],
      allowedCudaVersions: ['12.8', '12.9'],
      minCudaVersion: '12.4',
      executionTimeoutMs: 120000,
      idleTimeout: 60,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
      workersMin: 1,
      workersMax: 5,
      flashboot: true,
      vcpuCount: 4,
    });
    expect(created).toMatchObject({
      name: 'every field',
      gpuTypeIds: ['NVIDIA H100 80GB HBM3', 'NVIDIA GeForce RTX 4090'],
      gpuCount: 2,
      dataCenterIds: ['EU-RO-1', 'US-TX-3'],
      networkVolumeId: euVolume,
      networkVolumeIds: [euVolume, usVolume],
      allowedCudaVersions: ['12.8', '12.9'],
      minCudaVersion: '12.4',
      executionTimeoutMs: 120000,
      idleTimeout: 60,
      scalerType: 'REQUEST_COUNT',
      scalerValue: 2,
      workersMin: 1,
      workersMax: 5,
      flashboot: true,
      version: 0,
    });

    const patched = await ok<EndpointDto>(owner, 'PATCH', `/v1/endpoints/${created.id}`, {
      name: 'renamed',
      workersMax: 8,
      idleTimeout: 3600,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 10,
      gpuTypeIds: ['NVIDIA L4'],
      networkVolumeIds: [usVolume],
      dataCenterIds: ['US-TX-3'],
      flashboot: false,
    });
    expect(patched).toMatchObject({
      name: 'renamed',
      workersMin: 1,
      workersMax: 8,
      idleTimeout: 3600,
      scalerType: 'QUEUE_DELAY',
      scalerValue: 10,
      gpuTypeIds: ['NVIDIA L4'],
      gpuCount: 2,
      networkVolumeId: usVolume,
      networkVolumeIds: [usVolume],
      dataCenterIds: ['US-TX-3'],
      flashboot: false,
      version: 0,
    });
    const viaPost = await ok<EndpointDto>(owner, 'POST', `/v1/endpoints/${created.id}/update`, {
      workersMin: 0,
      executionTimeoutMs: 5000,
    });
    expect(viaPost).toEqual({ ...patched, workersMin: 0, executionTimeoutMs: 5000 });
    expect(await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${created.id}`)).toEqual(viaPost);

    const deleted = await call(owner, 'DELETE', `/v1/endpoints/${created.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call(owner, 'GET', `/v1/endpoints/${created.id}`)).statusCode).toBe(404);
    expect((await call(owner, 'DELETE', `/v1/endpoints/${created.id}`)).statusCode).toBe(404);
  });

  it('creates CPU endpoints with instance ids from the flavors, ignoring GPU fields', async () => {
    const cpu = await createEndpoint({
      templateId: template.id,
      computeType: 'CPU',
      cpuFlavorIds: ['cpu5g', 'cpu3c'],
      vcpuCount: 4,
      gpuTypeIds: ['NVIDIA L4'],
    });
    expect(cpu).toMatchObject({
      computeType: 'CPU',
      cpuFlavorIds: ['cpu5g', 'cpu3c'],
      vcpuCount: 4,
      instanceIds: ['cpu5g-4-16', 'cpu3c-4-8'],
      gpuTypeIds: [],
    });
    const defaults = await createEndpoint({ templateId: template.id, computeType: 'CPU' });
    expect(defaults.instanceIds).toEqual(['cpu3c-2-4', 'cpu3g-2-8', 'cpu5c-2-4', 'cpu5g-2-8']);
    expect(await rejected({ vcpuCount: 48 }, `/v1/endpoints/${cpu.id}`, 'PATCH')).toBe(
      'vcpuCount: cpu3c offers 2 to 32 vCPUs, not 48',
    );
    const resized = await ok<EndpointDto>(owner, 'PATCH', `/v1/endpoints/${cpu.id}`, {
      vcpuCount: 48,
      cpuFlavorIds: ['cpu5g'],
    });
    expect(resized).toMatchObject({
      vcpuCount: 48,
      cpuFlavorIds: ['cpu5g'],
      instanceIds: ['cpu5g-48-192'],
      version: 0,
    });
    expect(await rejected({ cpuFlavorIds: ['cpu3c'] }, `/v1/endpoints/${cpu.id}`, 'PATCH')).toBe(
      'vcpuCount: cpu3c offers 2 to 32 vCPUs, not 48',
    );
    expect(await rejected({ templateId: template.id, computeType: 'CPU', cpuFlavorIds: ['cpu3m'] })).toMatch(
      /^cpuFlavorIds\.0: /,
    );
  });

  it('refuses bad shapes with a 400 naming the field', async () => {
    const theirVolume = await volume(other, 'EU-RO-1');
    const euVolume = await volume(owner, 'EU-RO-1');
    const t = template.id;
    const cases: Array<[object, RegExp]> = [
      [{}, /^templateId: /],
      [{ templateId: 'missing-template' }, /^templateId: template missing-template not found$/],
      [{ templateId: otherTemplate.id }, /^templateId: template .* not found$/],
      [{ templateId: t, workersMin: 4, workersMax: 2 }, /^workersMin: must not exceed workersMax \(2\)/],
      [{ templateId: t, idleTimeout: 0 }, /^idleTimeout: /],
      [{ templateId: t, idleTimeout: 3601 }, /^idleTimeout: /],
      [{ templateId: t, scalerType: 'CPU_LOAD' }, /^scalerType: /],
      [{ templateId: t, scalerValue: 0 }, /^scalerValue: /],
      [{ templateId: t, type: 'HTTP' }, /^type: /],
      [
        { templateId: t, gpuTypeIds: ['NVIDIA GeForce GTX 480'] },
        /^gpuTypeIds\.0: unknown GPU type "NVIDIA GeForce GTX 480"$/,
      ],
      [{ templateId: t, gpuTypeIds: ['NVIDIA L4', 'NVIDIA L4'] }, /^gpuTypeIds\.1: "NVIDIA L4" is listed twice$/],
      [
        { templateId: t, gpuTypeIds: ['NVIDIA L4'], gpuCount: 9 },
        /^gpuCount: NVIDIA L4 offers at most 8 GPUs per worker$/,
      ],
      [{ templateId: t, gpuCount: 0 }, /^gpuCount: /],
      [{ templateId: t, dataCenterIds: ['MOON-1'] }, /^dataCenterIds\.0: unknown data center "MOON-1"$/],
      [{ templateId: t, networkVolumeId: theirVolume }, /^networkVolumeIds\.0: network volume .* not found$/],
      [
        { templateId: t, networkVolumeId: euVolume, dataCenterIds: ['US-TX-3'] },
        /^networkVolumeIds\.0: .* is in EU-RO-1, outside dataCenterIds$/,
      ],
      [
        { templateId: t, networkVolumeIds: [euVolume, await volume(owner, 'EU-RO-1')] },
        /^networkVolumeIds\.1: only one network volume per data center/,
      ],
      [{ templateId: t, executionTimeoutMs: 10 }, /^executionTimeoutMs: /],
      [{ templateId: t, minCudaVersion: '9.0' }, /^minCudaVersion: /],
      [{ templateId: t, computeType: 'TPU' }, /^computeType: /],
      [{ templateId: t, name: 'x'.repeat(192) }, /^name: /],
      [{ templateId: t, workersMax: 1_000_001 }, /^workersMax: /],
      [{ templateId: t, env: { A: 'b' } }, /^Unknown field: env$/],
      [{ templateId: t, name: 'nul\u0000name' }, /^name: must not contain NUL characters$/],
      [{ templateId: 'nul\u0000id' }, /^templateId: must not contain NUL characters$/],
      [{ templateId: t, gpuTypeIds: 'NVIDIA L4' }, /^gpuTypeIds: /],
    ];
    for (const [payload, expected] of cases) {
      const res = await call(owner, 'POST', '/v1/endpoints', payload);
      expect({ payload, status: res.statusCode }).toEqual({ payload, status: 400 });
      expect({ payload, message: (res.json() as { message: string }).message }).toEqual({
        payload,
        message: expect.stringMatching(expected),
      });
    }
    const ep = await createEndpoint({ templateId: t, workersMin: 1, workersMax: 2 });
    expect(await rejected({ workersMax: 0 }, `/v1/endpoints/${ep.id}`, 'PATCH')).toBe(
      'workersMin: must not exceed workersMax (0), got 1',
    );
    expect(await rejected({ computeType: 'CPU' }, `/v1/endpoints/${ep.id}`, 'PATCH')).toBe(
      'Unknown field: computeType',
    );
    expect(await rejected({ templateId: otherTemplate.id }, `/v1/endpoints/${ep.id}`, 'PATCH')).toMatch(
      /^templateId: /,
    );
    expect(await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}`)).toMatchObject({
      workersMin: 1,
      workersMax: 2,
      templateId: t,
    });
  });

  it('bumps the version when the template changes, and follows template edits', async () => {
    const second = await ok<TemplateDto>(owner, 'POST', '/v1/templates', {
      name: 'worker-2',
      imageName: 'runplane/worker:2',
      env: { MODEL: 'large' },
    });
    const ep = await createEndpoint({ templateId: template.id, name: 'versioned' });
    expect(ep.version).toBe(0);
    const renamed = await ok<EndpointDto>(owner, 'PATCH', `/v1/endpoints/${ep.id}`, {
      name: 'still v0',
      templateId: template.id,
      workersMax: 4,
    });
    expect(renamed.version).toBe(0);
    const swapped = await ok<EndpointDto>(owner, 'PATCH', `/v1/endpoints/${ep.id}`, { templateId: second.id });
    expect(swapped).toMatchObject({ version: 1, templateId: second.id, env: { MODEL: 'large' } });
    await ok<TemplateDto>(owner, 'PATCH', `/v1/templates/${second.id}`, { env: { MODEL: 'huge', EXTRA: '1' } });
    expect(await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}`)).toMatchObject({
      version: 2,
      env: { MODEL: 'huge', EXTRA: '1' },
    });
    await ok<TemplateDto>(owner, 'PATCH', `/v1/templates/${second.id}`, { imageName: 'runplane/worker:3' });
    expect((await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}`)).version).toBe(3);
  });

  it('keeps the template and volumes it uses from being deleted', async () => {
    const tpl = await ok<TemplateDto>(owner, 'POST', '/v1/templates', {
      name: 'pinned',
      imageName: 'runplane/pinned:1',
    });
    const first = await volume(owner, 'EU-RO-1');
    const second = await volume(owner, 'US-TX-3');
    const ep = await createEndpoint({ templateId: tpl.id, networkVolumeIds: [first, second] });
    for (const url of [`/v1/templates/${tpl.id}`, `/v1/networkvolumes/${first}`, `/v1/networkvolumes/${second}`]) {
      const refused = await call(owner, 'DELETE', url);
      expect({ url, status: refused.statusCode }).toEqual({ url, status: expect.any(Number) });
      expect(refused.statusCode).toBeGreaterThanOrEqual(400);
      expect(refused.statusCode).toBeLessThan(500);
      expect(refused.body).toContain(ep.id);
    }
    expect((await call(owner, 'DELETE', `/v1/endpoints/${ep.id}`)).statusCode).toBe(204);
    for (const url of [`/v1/templates/${tpl.id}`, `/v1/networkvolumes/${first}`, `/v1/networkvolumes/${second}`]) {
      expect((await call(owner, 'DELETE', url)).statusCode).toBe(204);
    }
  });

  it('accepts a public template of another account', async () => {
    const shared = await ok<TemplateDto>(other, 'POST', '/v1/templates', {
      name: 'shared',
      imageName: 'other/shared:1',
      isPublic: true,
    });
    const ep = await createEndpoint({ templateId: shared.id });
    const got = await ok<EndpointDto>(owner, 'GET', `/v1/endpoints/${ep.id}?includeTemplate=true`);
    expect(got.template).toMatchObject({ id: shared.id, imageName: 'other/shared:1', isPublic: true });
  });
});
