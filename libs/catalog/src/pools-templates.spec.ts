import { join } from 'node:path';
import type { DatabaseClient } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import {
  availabilityLevel,
  buildCatalog,
  CATALOG_ACCOUNT_ID,
  CatalogOverridesError,
  CatalogRepository,
  cpuUnitsByDataCenter,
  DEFAULT_GPU_POOLS,
  GPU_TYPE_IDS,
  gpuUnitsByDataCenter,
  type InventorySlot,
  loadCatalogOverrides,
  parseCatalogOverrides,
  seedCatalog,
} from '.';

const machine = (fields: Partial<InventorySlot>): InventorySlot => ({
  gpuTypeId: null,
  dataCenterId: 'EU-RO-1',
  gpuFree: 0,
  cpuFree: 0,
  memoryFreeGb: 0,
  cpuFlavorIds: [],
  secureCloud: true,
  ready: true,
  ...fields,
});

describe('serverless GPU pools', () => {
  it('name only catalog GPU types, each in one pool', () => {
    const members = Object.values(DEFAULT_GPU_POOLS).flat();
    expect(members.filter((id) => !GPU_TYPE_IDS.includes(id))).toEqual([]);
    expect(new Set(members).size).toBe(members.length);
    const catalog = buildCatalog();
    expect(catalog.gpuTypes.find((g) => g.id === 'NVIDIA GeForce RTX 4090')?.pool).toBe('ADA_24');
    expect(catalog.gpuTypes.find((g) => g.id === 'Tesla T4')?.pool).toBeNull();
  });

  it('take their members from the catalog file: a listed pool holds exactly the listed types', async () => {
    const overrides = await loadCatalogOverrides(join(__dirname, '../../../config/catalog.example.json'));
    const pools = new Map(buildCatalog(overrides).gpuTypes.map((g) => [g.id, g.pool]));
    expect(pools.get('NVIDIA GeForce RTX 4080 SUPER')).toBe('ADA_24');
    expect(pools.get('NVIDIA H200 NVL')).toBe('HOPPER_141');
    expect(pools.get('NVIDIA A40')).toBe('AMPERE_48');
    const without = buildCatalog(parseCatalogOverrides({ pools: { ADA_24: ['NVIDIA GeForce RTX 4090'] } }));
    expect(without.gpuTypes.find((g) => g.id === 'NVIDIA L4')?.pool).toBeNull();
  });

  it('reject a malformed pool id or template', () => {
    expect(() => parseCatalogOverrides({ pools: { 'ada-24': [] } })).toThrow(CatalogOverridesError);
    expect(() => parseCatalogOverrides({ templates: { 'my-tpl': { name: 'x' } } })).toThrow(
      /templates\["my-tpl"\]\.imageName: required/,
    );
    expect(() => parseCatalogOverrides({ templates: { 'runpod-ubuntu': { ports: ['22'] } } })).toThrow(/ports/);
  });
});

describe('availability from the inventory', () => {
  it('counts units of the asked shape on ready machines of the cloud, per data center', () => {
    const machines = [
      machine({ gpuTypeId: 'NVIDIA A40', gpuFree: 5 }),
      machine({ gpuTypeId: 'NVIDIA A40', gpuFree: 3, dataCenterId: 'US-TX-3' }),
      machine({ gpuTypeId: 'NVIDIA A40', gpuFree: 8, ready: false, dataCenterId: 'US-TX-3' }),
      machine({ gpuTypeId: 'NVIDIA A40', gpuFree: 8, secureCloud: false }),
    ];
    const shape = { gpuTypeId: 'NVIDIA A40', count: 2, secureCloud: true };
    expect([...gpuUnitsByDataCenter(machines, shape)]).toEqual([
      ['EU-RO-1', 2],
      ['US-TX-3', 1],
    ]);
    expect(gpuUnitsByDataCenter(machines, { ...shape, secureCloud: false }).get('EU-RO-1')).toBe(4);
    const cpu = [machine({ cpuFree: 16, memoryFreeGb: 24 }), machine({ cpuFree: 64, cpuFlavorIds: ['cpu5c'] })];
    expect(cpuUnitsByDataCenter(cpu, { flavorId: 'cpu3c', vcpuCount: 4, ramPerVcpuGb: 2 }).get('EU-RO-1')).toBe(3);
    expect([0, 1, 2, 3, 7, 8].map(availabilityLevel)).toEqual(['NONE', 'LOW', 'LOW', 'MEDIUM', 'MEDIUM', 'HIGH']);
  });
});

describe('public templates in the catalog', () => {
  let stores: TestStores;
  let db: DatabaseClient;

  beforeAll(async () => {
    stores = await createTestStores('catalog-templates');
    db = stores.db;
  });

  afterAll(() => stores.close());

  it('are seeded as public, official rows with the ids clients default to; the file adds and retires them', async () => {
    await seedCatalog(db);
    const ubuntu = await db.template.findUnique({ where: { id: 'runpod-ubuntu' } });
    expect(ubuntu).toMatchObject({ accountId: CATALOG_ACCOUNT_ID, isPublic: true, isRunpod: true, category: 'CPU' });
    expect((await new CatalogRepository(db).findGpuType('NVIDIA L40S'))?.pool).toBe('ADA_48_PRO');

    const overrides = await loadCatalogOverrides(join(__dirname, '../../../config/catalog.example.json'));
    await seedCatalog(db, overrides);
    expect(await db.template.findUnique({ where: { id: 'acme-vllm-worker' } })).toMatchObject({
      isServerless: true,
      isRunpod: true,
      env: { MAX_MODEL_LEN: '8192' },
    });
    expect((await db.template.findUnique({ where: { id: 'runpod-torch-v240' } }))?.containerDiskInGb).toBe(80);

    await seedCatalog(db, parseCatalogOverrides({ templates: { 'runpod-torch-v280': null } }));
    expect(await db.template.findUnique({ where: { id: 'runpod-torch-v280' } })).toMatchObject({
      isPublic: false,
      isRunpod: false,
    });
    expect((await db.template.findUnique({ where: { id: 'acme-vllm-worker' } }))?.isRunpod).toBe(false);
  });
});
