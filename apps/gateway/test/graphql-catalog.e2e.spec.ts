import { DEFAULT_DATA_CENTERS, DEFAULT_GPU_POOLS, seedCatalog } from '@runplane/catalog';
import { newId } from '@runplane/db';
import { postGraphql } from './fixtures/graphql/client';
import { CTL_DATA_CENTERS, CTL_GPU_POOLS } from './fixtures/graphql/runpod-texts';
import { type GatewayHarness, startGateway } from './harness';

const RTX = 'NVIDIA GeForce RTX 4090';

describe('GraphQL dataCenters and serverlessGpuPools', () => {
  let gw: GatewayHarness;
  let key: string;

  beforeAll(async () => {
    gw = await startGateway('graphql-catalog');
    await seedCatalog(gw.db);
    ({ secret: key } = await gw.accountWithKey());
    const machine = (dataCenterId: string, gpuCount: number) =>
      gw.db.machine.create({
        data: {
          id: newId(),
          name: `node-${newId(6)}`,
          ready: true,
          schedulable: true,
          dataCenterId,
          gpuTypeId: RTX,
          gpuCount,
          cpuCount: 64,
          memoryInGb: 256,
        },
      });
    await machine('EU-RO-1', 8);
    await machine('US-TX-3', 1);
  });

  afterAll(() => gw.close());

  it("answers runpodctl's gpu/datacenter list with each listed data center and the stock of its GPU types", async () => {
    const res = await postGraphql(gw, { key, query: CTL_DATA_CENTERS, variables: null });
    expect(res.status).toBe(200);
    const centers = res.body.data?.dataCenters as { id: string; name: string; location: string }[];
    const listed = DEFAULT_DATA_CENTERS.filter((dc) => dc.listed);
    expect(centers.map((dc) => dc.id).sort()).toEqual(listed.map((dc) => dc.id).sort());
    const ro = listed.find((dc) => dc.id === 'EU-RO-1');
    const byId = new Map(centers.map((dc) => [dc.id, dc]));
    expect(byId.get('EU-RO-1')).toEqual({
      id: 'EU-RO-1',
      name: ro?.name,
      location: ro?.location,
      gpuAvailability: [{ gpuTypeId: RTX, displayName: 'RTX 4090', stockStatus: 'High' }],
    });
    expect(byId.get('US-TX-3')).toMatchObject({
      gpuAvailability: [{ gpuTypeId: RTX, displayName: 'RTX 4090', stockStatus: 'Low' }],
    });
    expect(byId.get('EU-SE-1')).toMatchObject({ gpuAvailability: [] });
  });

  it("answers runpodctl's serverlessGpuPools with every pool and the catalog GPU types in it", async () => {
    const res = await postGraphql(gw, { key, query: CTL_GPU_POOLS, variables: null });
    expect(res.status).toBe(200);
    const pools = new Map(
      (res.body.data?.serverlessGpuPools as { id: string; gpuTypeIds: string[] }[]).map((p) => [p.id, p.gpuTypeIds]),
    );
    expect(pools.get('ADA_24')?.sort()).toEqual(['NVIDIA GeForce RTX 4090', 'NVIDIA L4']);
    expect(pools.get('AMPERE_48')?.sort()).toEqual(['NVIDIA A40', 'NVIDIA RTX A6000']);
    for (const id of pools.keys()) expect(Object.keys(DEFAULT_GPU_POOLS)).toContain(id);
    expect([...pools.values()].flat()).not.toContain('Tesla T4');
  });
});
