import { seedCatalog } from '@runplane/catalog';
import { newId } from '@runplane/db';
import { bearer, type GatewayHarness, startGateway } from './harness';

// Response bodies are read field by field; each expectation states the shape it needs.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

interface Caller {
  accountId: string;
  secret: string;
}

describe('v2 /catalog', () => {
  let gw: GatewayHarness;
  let tenant: Caller;
  let other: Caller;

  const get = async (caller: Caller | null, url: string) => {
    const res = await gw.inject({ method: 'GET', url, headers: caller ? bearer(caller.secret) : {} });
    return { status: res.statusCode, type: res.headers['content-type'], body: res.json() as Body };
  };
  const problem = async (url: string, status: number, caller: Caller | null = tenant) => {
    const res = await get(caller, url);
    expect({ status: res.status, type: res.type }).toEqual({
      status,
      type: expect.stringMatching(/^application\/problem\+json/),
    });
    expect(res.body).toMatchObject({ status, title: expect.any(String), detail: expect.any(String) });
    return res.body;
  };
  const machine = (fields: Record<string, unknown>) =>
    gw.db.machine.create({
      data: {
        id: newId(),
        name: `node-${newId(6)}`,
        ready: true,
        schedulable: true,
        dataCenterId: 'EU-RO-1',
        ...fields,
      },
    });

  beforeAll(async () => {
    gw = await startGateway('v2-catalog');
    await seedCatalog(gw.db);
    tenant = await gw.accountWithKey();
    other = await gw.accountWithKey();
    const rtx = { gpuTypeId: 'NVIDIA GeForce RTX 4090', gpuCount: 8, cpuCount: 64, memoryInGb: 256 };
    const eu = await machine(rtx);
    await machine({ ...rtx, dataCenterId: 'US-TX-3', ready: false });
    await machine({ gpuTypeId: 'Tesla T4', gpuCount: 4, dataCenterId: 'EU-SE-1' });
    await machine({ cpuCount: 16, memoryInGb: 64, dataCenterId: 'CA-MTL-1' });
    // Capacity already taken: 4 of the EU machine's 8 GPUs are reserved for a Pod being placed.
    await gw.db.capacityReservation.create({
      data: {
        podId: newId(),
        machineId: eu.id,
        gpuCount: 4,
        vcpuCount: 8,
        memoryInGb: 32,
        expiresAt: new Date(Date.now() + 600_000),
      },
    });
  });
  afterAll(() => gw.close());

  it('lists GPU types with their serverless pool, prices and counts, without availability unless asked', async () => {
    const { status, body } = await get(tenant, '/v2/catalog/gpus');
    expect(status).toBe(200);
    const rtx = body.gpus.find((g: { id: string }) => g.id === 'NVIDIA GeForce RTX 4090');
    expect(rtx).toEqual({
      id: 'NVIDIA GeForce RTX 4090',
      name: 'RTX 4090',
      pool: 'ADA_24',
      manufacturer: 'NVIDIA',
      memory: 24,
      secure: true,
      community: true,
      price: { secure: 0.69, community: 0.34, serverless: 0.69 },
      maxCount: { secure: 8, community: 8 },
    });
    expect(body.gpus.find((g: { id: string }) => g.id === 'Tesla T4')).toMatchObject({ pool: null });
    expect(body.gpus.find((g: { id: string }) => g.id === 'Tesla T4').price.serverless).toBeUndefined();
    expect(body.gpus.find((g: { id: string }) => g.id === 'AMD Instinct MI300X OAM').manufacturer).toBe('AMD');
  });

  it('computes availability from the machines free capacity, per data center, product, count and country', async () => {
    const pod = await get(tenant, '/v2/catalog/gpus/NVIDIA%20GeForce%20RTX%204090?include=AVAILABILITY&product=POD');
    expect(pod.body).toMatchObject({
      availability: 'MEDIUM',
      dataCenters: [{ id: 'EU-RO-1', name: 'Romania 1', availability: 'MEDIUM' }],
    });
    const pairs = await get(
      tenant,
      '/v2/catalog/gpus/NVIDIA%20GeForce%20RTX%204090?include=AVAILABILITY&product=POD&count=2',
    );
    expect(pairs.body).toMatchObject({ availability: 'LOW', dataCenters: [{ id: 'EU-RO-1', availability: 'LOW' }] });
    const community = await get(
      tenant,
      '/v2/catalog/gpus/NVIDIA%20GeForce%20RTX%204090?include=AVAILABILITY&product=POD&cloud=COMMUNITY',
    );
    expect(community.body.availability).toBe('NONE');
    expect(community.body.dataCenters).toBeUndefined();
    const t4 = await get(tenant, '/v2/catalog/gpus/Tesla%20T4?include=AVAILABILITY&product=SERVERLESS');
    expect(t4.body.availability).toBe('NONE');
    const t4Pods = await get(tenant, '/v2/catalog/gpus/Tesla%20T4?include=AVAILABILITY&product=POD,SERVERLESS');
    expect(t4Pods.body).toMatchObject({ availability: 'MEDIUM', dataCenters: [{ id: 'EU-SE-1' }] });

    const us = await get(tenant, '/v2/catalog/gpus?include=AVAILABILITY&product=POD&countryCodes=US');
    expect(us.body.gpus.map((g: { id: string }) => g.id)).toEqual(['NVIDIA GeForce RTX 4090']);
    expect(us.body.gpus[0]).toMatchObject({ availability: 'NONE' });
    const all = await get(tenant, '/v2/catalog/gpus?include=AVAILABILITY&product=SERVERLESS');
    expect(all.body.gpus.find((g: { id: string }) => g.id === 'NVIDIA A40')).toMatchObject({ availability: 'NONE' });
  });

  it('answers the parameter rules with problem+json: 400 for combinations, 422 for malformed values, 404', async () => {
    await problem('/v2/catalog/gpus?include=AVAILABILITY', 400);
    await problem('/v2/catalog/gpus?product=POD', 400);
    await problem('/v2/catalog/gpus?count=2', 400);
    await problem('/v2/catalog/gpus/NVIDIA%20A40?cloud=SECURE', 400);
    await problem('/v2/catalog/gpus?include=AVAILABILITY&product=POD&cudaVersions=12.8&minCudaVersion=12', 400);
    const invalid = await problem('/v2/catalog/gpus?include=AVAILABILITY&product=POD&countryCodes=france', 422);
    expect(invalid.errors).toEqual([expect.stringContaining('countryCodes')]);
    await problem('/v2/catalog/gpus?include=EVERYTHING&product=POD', 422);
    await problem('/v2/catalog/gpus?include=AVAILABILITY&product=SPOT', 422);
    await problem('/v2/catalog/gpus?include=AVAILABILITY&product=POD&cudaVersions=12', 422);
    await problem('/v2/catalog/gpus?include=AVAILABILITY&product=POD&count=0', 422);
    await problem('/v2/catalog/gpus/NVIDIA%20H9000', 404);
    await problem('/v2/catalog/cpus?include=AVAILABILITY&product=POD&vcpuCount=3', 422);
    await problem('/v2/catalog/cpus?vcpuCount=4', 400);
    await problem('/v2/catalog/cpus?include=AVAILABILITY&product=CLUSTER', 422);
    await problem('/v2/catalog/cpus/cpu9x', 404);
    await problem('/v2/catalog/datacenters?regions=MARS', 422);
    await problem('/v2/catalog/datacenters/XX-XX-1', 404);
    await problem('/v2/catalog/templates?source=mine', 422);
    await problem('/v2/catalog/gpus', 401, null);
    await problem('/v2/catalog/templates', 401, { accountId: '', secret: 'rpa_not-a-key' });
  });

  it('lists CPU flavors with availability on CPU machines', async () => {
    const { body } = await get(tenant, '/v2/catalog/cpus');
    expect(body.cpus.find((c: { id: string }) => c.id === 'cpu3c')).toEqual({
      id: 'cpu3c',
      name: 'Compute-Optimized',
      group: 'Gen 3',
      vcpu: { min: 2, max: 32 },
      ramGbPerVcpu: 2,
      price: { securePerVcpu: 0.03, serverlessPerVcpu: 0.03 },
    });
    const cpu3c = await get(tenant, '/v2/catalog/cpus/cpu3c?include=AVAILABILITY&product=POD&vcpuCount=4');
    expect(cpu3c.body).toMatchObject({
      availability: 'MEDIUM',
      dataCenters: [{ id: 'CA-MTL-1', availability: 'MEDIUM' }],
    });
    const memory = await get(tenant, '/v2/catalog/cpus/cpu3m?include=AVAILABILITY&product=SERVERLESS&vcpuCount=8');
    expect(memory.body).toMatchObject({ availability: 'LOW' });
  });

  it('lists data centers with region, volume tiers, filters and per-data-center availability', async () => {
    const { body } = await get(tenant, '/v2/catalog/datacenters');
    expect(body.dataCenters.find((d: { id: string }) => d.id === 'EU-RO-1')).toEqual({
      id: 'EU-RO-1',
      name: 'Romania 1',
      region: 'EUROPE',
      globalNetwork: false,
      networkVolumeTypes: ['STANDARD'],
      compliance: [],
    });
    const europe = await get(tenant, '/v2/catalog/datacenters?regions=EUROPE&networkVolumeTypes=STANDARD');
    expect(europe.body.dataCenters.every((d: { region: string }) => d.region === 'EUROPE')).toBe(true);
    expect(europe.body.dataCenters.length).toBeGreaterThan(1);
    const hp = await get(tenant, '/v2/catalog/datacenters?networkVolumeTypes=STANDARD,HIGH_PERFORMANCE');
    expect(hp.body.dataCenters).toEqual([]);
    expect((await get(tenant, '/v2/catalog/datacenters?globalNetwork=true')).body.dataCenters).toEqual([]);
    const ro = await get(tenant, '/v2/catalog/datacenters/EU-RO-1?include=GPU_AVAILABILITY,CPU_AVAILABILITY');
    expect(ro.body.gpuAvailability).toEqual([
      { id: 'NVIDIA GeForce RTX 4090', name: 'RTX 4090', availability: 'MEDIUM' },
    ]);
    expect(ro.body.cpuAvailability).toBeUndefined();
    const mtl = await get(tenant, '/v2/catalog/datacenters?include=CPU_AVAILABILITY&regions=NORTH_AMERICA');
    const montreal = mtl.body.dataCenters.find((d: { id: string }) => d.id === 'CA-MTL-1');
    expect(montreal.cpuAvailability).toContainEqual({ id: 'cpu3c', name: 'Compute-Optimized', availability: 'HIGH' });
  });

  it('lists public templates: the official catalog, community ones shared by accounts, registry shown to owners only', async () => {
    const official = await get(tenant, '/v2/catalog/templates');
    const ubuntu = official.body.templates.find((t: { id: string }) => t.id === 'runpod-ubuntu');
    expect(ubuntu).toMatchObject({ public: true, serverless: false, category: 'CPU', registry: null, startSsh: true });
    expect(official.body.templates.map((t: { id: string }) => t.id)).toEqual(
      expect.arrayContaining(['runpod-torch-v240', 'runpod-worker-python']),
    );
    const auth = await gw.db.containerRegistryAuth.create({
      data: { id: newId(), accountId: other.accountId, name: 'private', username: 'u', passwordEncrypted: 'sealed' },
    });
    for (const [name, isPublic] of [
      ['shared', true],
      ['private', false],
    ] as const) {
      await gw.db.template.create({
        data: {
          id: newId(),
          accountId: other.accountId,
          name,
          imageName: 'acme/tool:1',
          isPublic,
          ports: ['8888/http'],
          startJupyter: false,
          dockerStartCmd: ['serve', '--port 8888'],
          containerRegistryAuthId: auth.id,
        },
      });
    }
    const seenByTenant = await get(tenant, '/v2/catalog/templates?source=community');
    expect(seenByTenant.body.templates).toEqual([
      expect.objectContaining({ name: 'shared', registry: null, args: 'serve "--port 8888"', startJupyter: false }),
    ]);
    const seenByOwner = await get(other, '/v2/catalog/templates?source=community');
    expect(seenByOwner.body.templates).toEqual([expect.objectContaining({ name: 'shared', registry: auth.id })]);
    expect((await get(tenant, '/v2/catalog/templates?source=verified')).body).toEqual({ templates: [] });
  });
});
