import { type Answer, type Caller, startServerlessWorld } from './v2-serverless-fixture';

describe('v2 /serverless', () => {
  let world: Awaited<ReturnType<typeof startServerlessWorld>>;
  let tenant: Caller;
  let other: Caller;
  const call = (...args: Parameters<typeof world.call>) => world.call(...args);
  const problem = (answer: Promise<Answer>, status: number) => world.expectProblem(answer, status);

  beforeAll(async () => {
    world = await startServerlessWorld('v2-serverless');
    ({ tenant, other } = world);
  });
  afterAll(() => world.gw.close());

  it('creates a queue endpoint from an image: RunPod defaults, pools, requestUrls on the job API', async () => {
    const created = await world.create(tenant, { env: { MODEL: 'small' }, ports: ['8000/http'], args: 'serve --fast' });
    const id = created.id as string;
    const base = `http://127.0.0.1:8081/v2/${id}`;
    expect(created).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{14}$/),
      name: 'worker',
      type: 'QUEUE',
      requestUrls: {
        run: `${base}/run`,
        runSync: `${base}/runsync`,
        status: `${base}/status/{job_id}`,
        stream: `${base}/stream/{job_id}`,
        cancel: `${base}/cancel/{job_id}`,
        retry: `${base}/retry/{job_id}`,
        purgeQueue: `${base}/purge-queue`,
        health: `${base}/health`,
      },
      image: 'acme/worker:1',
      args: 'serve --fast',
      disk: 20,
      ports: ['8000/http'],
      env: { MODEL: 'small' },
      registry: null,
      gpu: { pools: ['ADA_24'], excludedTypes: [], count: 1, allowedCudaVersions: [], minCudaVersion: null },
      workers: { min: 0, max: 3, idleTimeout: 10 },
      scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
      dataCenterIds: expect.arrayContaining(['EU-RO-1', 'US-TX-3']),
      networkVolumes: [],
      timeout: 300000,
      flashboot: 'OFF',
      createdAt: expect.any(String),
    });
    expect((await call(tenant, 'GET', `/v2/serverless/${id}`)).body).toEqual(created);

    // The same row through v1: a normal endpoint on a template bound to it, GPU types of the pool.
    const v1 = (await call(tenant, 'GET', `/v1/endpoints/${id}?includeTemplate=true`)).body;
    expect(v1).toMatchObject({
      gpuTypeIds: ['NVIDIA GeForce RTX 4090', 'NVIDIA L4'],
      env: { MODEL: 'small' },
      executionTimeoutMs: 300000,
      template: { imageName: 'acme/worker:1', isServerless: true, dockerStartCmd: ['serve', '--fast'] },
    });
    expect(v1.template.name).toMatch(/^worker__template__[a-z0-9]{8}$/);
  });

  it('round-trips v1 and v2 on the same rows: a v1 endpoint reads in v2, a v2 PATCH reads in v1', async () => {
    const template = await call(tenant, 'POST', '/v1/templates', {
      name: 'shared-worker',
      imageName: 'acme/shared:2',
      isServerless: true,
      env: { A: '1' },
      ports: [],
    });
    const v1 = await call(tenant, 'POST', '/v1/endpoints', {
      templateId: template.body.id,
      name: 'from-v1',
      gpuTypeIds: ['NVIDIA A40', 'NVIDIA RTX A6000', 'NVIDIA L40S'],
      scalerType: 'REQUEST_COUNT',
      scalerValue: 7,
      workersMax: 5,
    });
    const id = v1.body.id as string;
    const read = (await call(tenant, 'GET', `/v2/serverless/${id}`)).body;
    expect(read).toMatchObject({
      name: 'from-v1',
      image: 'acme/shared:2',
      env: { A: '1' },
      gpu: { pools: ['AMPERE_48', 'ADA_48_PRO'], excludedTypes: ['NVIDIA L40', 'NVIDIA RTX 6000 Ada Generation'] },
      scaling: { type: 'REQUEST_COUNT', requestCount: 7 },
      workers: { min: 0, max: 5 },
    });
    expect(read.workers.idleTimeout).toBeUndefined();

    // A container change moves the endpoint to a bound template of its own; the shared template is untouched.
    const patched = await call(tenant, 'PATCH', `/v2/serverless/${id}`, {
      image: 'acme/shared:3',
      workers: { min: 1 },
      gpu: { pools: ['ADA_48_PRO'], excludedTypes: [' NVIDIA L40'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ image: 'acme/shared:3', env: { A: '1' }, workers: { min: 1, max: 5 } });
    expect(patched.body.gpu).toMatchObject({ pools: ['ADA_48_PRO'], excludedTypes: ['NVIDIA L40'] });
    const after = (await call(tenant, 'GET', `/v1/endpoints/${id}?includeTemplate=true`)).body;
    expect(after).toMatchObject({
      workersMin: 1,
      version: 1,
      gpuTypeIds: ['NVIDIA L40S', 'NVIDIA RTX 6000 Ada Generation'],
    });
    expect(after.templateId).not.toBe(template.body.id);
    expect((await call(tenant, 'GET', `/v1/templates/${template.body.id}`)).body.imageName).toBe('acme/shared:2');

    // A second container change updates that bound template in place (version 2), env replaced as sent.
    await call(tenant, 'PATCH', `/v2/serverless/${id}`, { env: { B: '2' } });
    const again = (await call(tenant, 'GET', `/v1/endpoints/${id}`)).body;
    expect(again).toMatchObject({ templateId: after.templateId, version: 2, env: { B: '2' } });
  });

  it('creates from a serverless template (body fields win, env merged), LOAD_BALANCER and CPU endpoints', async () => {
    const template = await call(tenant, 'POST', '/v1/templates', {
      name: 'base-worker',
      imageName: 'acme/base:1',
      isServerless: true,
      env: { A: '1', B: '1' },
      containerDiskInGb: 33,
    });
    await world.gw.db.template.update({ where: { id: template.body.id }, data: { allowedCudaVersions: ['12.8'] } });
    const fromTemplate = await world.create(tenant, {
      image: undefined,
      templateId: template.body.id,
      env: { B: '2' },
    });
    expect(fromTemplate).toMatchObject({ image: 'acme/base:1', disk: 33, env: { A: '1', B: '2' } });
    expect(fromTemplate.gpu.allowedCudaVersions).toEqual(['12.8']);
    const floor = { pools: ['ADA_24'], minCudaVersion: '12.4' };
    const withFloor = await world.create(tenant, { image: undefined, templateId: template.body.id, gpu: floor });
    expect(withFloor.gpu).toMatchObject({ allowedCudaVersions: [], minCudaVersion: '12.4' });

    const lb = await world.create(tenant, {
      type: 'LOAD_BALANCER',
      scaling: { type: 'REQUEST_COUNT', requestCount: 3 },
    });
    // Its own host under the job API's (RUNPLANE_LB_DOMAIN unset; an IP address becomes localhost).
    expect(lb.requestUrls).toEqual({
      base: `http://${lb.id}.localhost:8081`,
      health: `http://${lb.id}.localhost:8081/ping`,
    });
    expect(lb).toMatchObject({ type: 'LOAD_BALANCER', workers: { idleTimeout: 10 } });

    const cpu = await world.create(tenant, {
      gpu: undefined,
      cpu: [
        { id: 'cpu3c', vcpuCount: 4 },
        { id: 'cpu5g', vcpuCount: 4 },
      ],
    });
    expect(cpu.cpu).toEqual([
      { id: 'cpu3c', vcpuCount: 4, memory: 8 },
      { id: 'cpu5g', vcpuCount: 4, memory: 16 },
    ]);
    expect(cpu.gpu).toBeNull();
  });

  it('answers every validation path with problem+json', async () => {
    const base = { name: 'x', type: 'QUEUE', scaling: { type: 'QUEUE_DELAY', queueDelay: 4 }, image: 'a/b:1' };
    const post = (body: unknown) => call(tenant, 'POST', '/v2/serverless', body);
    const unknownField = await problem(post({ ...base, gpu: { pools: ['ADA_24'] }, gpuIds: 'ADA_24' }), 422);
    expect(unknownField.errors).toEqual(["$: additional property 'gpuIds' not allowed"]);
    expect((await problem(post({ type: 'QUEUE' }), 422)).errors).toEqual(
      expect.arrayContaining(["$: missing property 'name'", "$: missing property 'scaling'"]),
    );
    await problem(post({ ...base, type: 'BATCH', gpu: { pools: ['ADA_24'] } }), 422);
    await problem(
      post({ ...base, scaling: { type: 'QUEUE_DELAY', queueDelay: 0.1 }, gpu: { pools: ['ADA_24'] } }),
      422,
    );
    await problem(post({ ...base, type: 'LOAD_BALANCER', gpu: { pools: ['ADA_24'] } }), 422);
    const idle = { ...base, scaling: { type: 'REQUEST_COUNT', requestCount: 2 }, workers: { idleTimeout: 5 } };
    await problem(post({ ...idle, gpu: { pools: ['ADA_24'] } }), 422);
    await problem(post(base), 400);
    await problem(post({ ...base, gpu: { pools: ['ADA_24'] }, cpu: [{ id: 'cpu3c', vcpuCount: 2 }] }), 400);
    await problem(post({ ...base, image: undefined, gpu: { pools: ['ADA_24'] } }), 422);
    expect((await problem(post({ ...base, gpu: { pools: ['VOLTA_8'] } }), 400)).errors).toEqual([
      expect.stringContaining('$.gpu.pools'),
    ]);
    await problem(post({ ...base, gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA A40'] } }), 400);
    await problem(
      post({ ...base, gpu: { pools: ['ADA_24'], excludedTypes: ['NVIDIA L4', 'NVIDIA GeForce RTX 4090'] } }),
      400,
    );
    await problem(
      post({ ...base, gpu: { pools: ['ADA_24'], allowedCudaVersions: ['12.8'], minCudaVersion: '12.1' } }),
      400,
    );
    await problem(
      post({
        ...base,
        cpu: [
          { id: 'cpu3c', vcpuCount: 2 },
          { id: 'cpu5c', vcpuCount: 4 },
        ],
      }),
      400,
    );
    const bounds = await problem(post({ ...base, gpu: { pools: ['ADA_24'] }, workers: { min: 4, max: 2 } }), 400);
    expect(bounds.errors).toEqual([expect.stringMatching(/^\$\.workers\.min: /)]);
    await problem(post({ ...base, gpu: { pools: ['ADA_24'] }, networkVolumes: ['nope'] }), 400);
    await problem(post({ ...base, gpu: { pools: ['ADA_24'] }, registry: 'nope' }), 400);
    await problem(post({ ...base, gpu: { pools: ['ADA_24'] }, templateId: 'nope' }), 404);
    const podTemplate = await call(tenant, 'POST', '/v1/templates', { name: 'pod-tpl', imageName: 'a/b:1' });
    await problem(post({ ...base, gpu: { pools: ['ADA_24'] }, templateId: podTemplate.body.id }), 422);
    await problem(call(tenant, 'POST', '/v2/serverless/abc', base), 405);
    await problem(call(tenant, 'GET', '/v2/serverless?cursor=garbage'), 422);
    await problem(call(tenant, 'GET', '/v2/serverless?limit=0'), 422);

    const gpu = await world.create(tenant, {});
    await problem(call(tenant, 'PATCH', `/v2/serverless/${gpu.id}`, { cpu: [{ id: 'cpu3c', vcpuCount: 2 }] }), 400);
    await problem(call(tenant, 'PATCH', `/v2/serverless/${gpu.id}`, { gpu: { excludedTypes: ['NVIDIA L4'] } }), 422);
    await problem(call(tenant, 'PATCH', `/v2/serverless/${gpu.id}`, { type: 'LOAD_BALANCER' }), 422);
    await problem(call(tenant, 'PATCH', `/v2/serverless/${gpu.id}`, { workers: { min: 9 } }), 400);
    await problem(call(tenant, 'GET', '/v2/serverless/missing'), 404);
    await problem(call(tenant, 'PATCH', '/v2/serverless/missing', { name: 'y' }), 404);
    await problem(call(tenant, 'DELETE', '/v2/serverless/missing'), 404);
  });

  it('pages the list with cursors; deletes with 204 (and the bound template with it)', async () => {
    const fresh = await world.gw.accountWithKey();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) ids.push((await world.create(fresh, { name })).id);
    const first = await call(fresh, 'GET', '/v2/serverless?limit=2');
    expect(first.body.endpoints.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
    expect(first.body.pagination).toEqual({ nextCursor: expect.any(String), hasNextPage: true });
    const next = await call(fresh, 'GET', `/v2/serverless?limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(next.body).toMatchObject({
      endpoints: [{ id: ids[2] }],
      pagination: { nextCursor: null, hasNextPage: false },
    });
    expect((await call(fresh, 'GET', '/v2/serverless')).body.pagination).toEqual({
      nextCursor: null,
      hasNextPage: false,
    });

    const bound = (await call(fresh, 'GET', `/v1/endpoints/${ids[0]}`)).body.templateId;
    const removed = await call(fresh, 'DELETE', `/v2/serverless/${ids[0]}`);
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 204, body: null });
    await problem(call(fresh, 'GET', `/v2/serverless/${ids[0]}`), 404);
    expect((await call(fresh, 'GET', `/v1/templates/${bound}`)).status).toBe(404);
  });

  it('keeps tenants apart on every route', async () => {
    const mine = await world.create(tenant, { name: 'private' });
    for (const [method, url, body] of [
      ['GET', `/v2/serverless/${mine.id}`],
      ['PATCH', `/v2/serverless/${mine.id}`, { name: 'stolen' }],
      ['DELETE', `/v2/serverless/${mine.id}`],
      ['GET', `/v2/serverless/${mine.id}/workers`],
      ['GET', `/v2/serverless/${mine.id}/releases`],
    ] as const) {
      await problem(call(other, method, url, body), 404);
    }
    const theirs = (await call(other, 'GET', '/v2/serverless')).body.endpoints.map((e: { id: string }) => e.id);
    expect(theirs).not.toContain(mine.id);
    expect((await call(tenant, 'GET', `/v2/serverless/${mine.id}`)).body.name).toBe('private');
    const reader = await world.gw.accountWithKey('READ_ONLY');
    await problem(call({ ...reader }, 'POST', '/v2/serverless', { name: 'x' }), 403);
  });
});
