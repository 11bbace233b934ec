import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseClient } from '@runplane/db';
import { createTestStores, type TestStores } from '@runplane/testing';
import {
  CatalogOverridesError,
  CatalogRepository,
  CPU_FLAVOR_IDS,
  DATA_CENTER_IDS,
  GPU_TYPE_IDS,
  loadCatalogOverrides,
  parseCatalogOverrides,
  seedCatalog,
} from '.';

const dir = mkdtempSync(join(tmpdir(), 'runplane-catalog-'));
function writeJson(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('catalog data', () => {
  it('covers the v1 API enums', () => {
    expect(GPU_TYPE_IDS).toHaveLength(50);
    expect(new Set(GPU_TYPE_IDS).size).toBe(50);
    expect(GPU_TYPE_IDS).toEqual(
      expect.arrayContaining(['NVIDIA H100 80GB HBM3', 'NVIDIA  A30', 'AMD Instinct MI300X OAM', 'Tesla T4']),
    );
    expect(DATA_CENTER_IDS).toHaveLength(26);
    expect(DATA_CENTER_IDS[0]).toBe('EU-RO-1');
    expect(CPU_FLAVOR_IDS).toEqual(['cpu3c', 'cpu3g', 'cpu3m', 'cpu5c', 'cpu5g', 'cpu5m']);
  });
});

describe('catalog overrides', () => {
  it('load a valid file, such as the documented example', async () => {
    const example = await loadCatalogOverrides(join(__dirname, '../../../config/catalog.example.json'));
    expect(example.gpuTypes?.['NVIDIA H100 80GB HBM3']?.securePrice).toBe(2.49);
  });

  it.each([
    [{ gpuTypes: { 'NVIDIA L4': { securePrice: 'cheap' } } }, 'gpuTypes["NVIDIA L4"].securePrice'],
    [{ gpuTypes: { 'NVIDIA L4': { securPrice: 1 } } }, 'gpuTypes["NVIDIA L4"].securPrice'],
    [{ gpuTypes: { 'NVIDIA L4': { memoryInGb: -4 } } }, 'gpuTypes["NVIDIA L4"].memoryInGb'],
    [
      { gpuTypes: { 'NVIDIA X1': { displayName: 'X1', securePrice: 1 } } },
      'gpuTypes["NVIDIA X1"].memoryInGb: required',
    ],
    [{ cpuFlavors: { cpu3c: { pricePerVcpuHr: -1 } } }, 'cpuFlavors.cpu3c.pricePerVcpuHr'],
    [{ dataCenters: { 'EU-RO-1': { countryCode: 'Romania' } } }, 'dataCenters["EU-RO-1"].countryCode'],
    [{ dataCenters: { 'EU-XX-1': { name: 'x', location: 'y' } } }, 'dataCenters["EU-XX-1"].countryCode: required'],
    [{ gpuTypesTypo: {} }, 'gpuTypesTypo'],
  ])('reject %j naming the field', async (content, field) => {
    const path = writeJson('bad.json', content);
    const error = await loadCatalogOverrides(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogOverridesError);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain(field);
  });

  it('reject a file that is not JSON', async () => {
    const path = writeJson('broken.json', '{ "gpuTypes": ');
    await expect(loadCatalogOverrides(path)).rejects.toThrow(/not valid JSON/);
  });
});

describe('seedCatalog', () => {
  let stores: TestStores;
  let db: DatabaseClient;
  let repository: CatalogRepository;

  beforeAll(async () => {
    stores = await createTestStores('catalog');
    db = stores.db;
    repository = new CatalogRepository(db);
  });

  afterAll(() => stores.close());

  it('writes the catalog once; a second run changes nothing', async () => {
    expect(await seedCatalog(db)).toEqual({ created: 50 + 6 + 26, updated: 0, unchanged: 0 });
    const before = await db.gpuType.findMany({ orderBy: { id: 'asc' } });

    expect(await seedCatalog(db)).toEqual({ created: 0, updated: 0, unchanged: 82 });
    const after = await db.gpuType.findMany({ orderBy: { id: 'asc' } });
    expect(after).toEqual(before); // updatedAt included
    expect(await db.cpuFlavor.count()).toBe(6);
    expect(await db.dataCenter.count()).toBe(26);
  });

  it('serves entries with plain-number prices', async () => {
    const h100 = await repository.findGpuType('NVIDIA H100 80GB HBM3');
    expect(h100).toMatchObject({
      displayName: 'H100 SXM',
      memoryInGb: 80,
      gfdProduct: 'NVIDIA-H100-80GB-HBM3',
      securePrice: 2.69,
    });
    expect(await repository.findGpuType('NVIDIA H9000')).toBeNull();
    expect((await repository.findGpuTypesByGfdProduct('NVIDIA-A30')).map((g) => g.id)).toEqual([
      'NVIDIA  A30',
      'NVIDIA A30',
      'NVIDIA RTX A30',
    ]);
    expect(await repository.listGpuTypes()).toHaveLength(50);
    expect(await repository.findCpuFlavor('cpu3g')).toMatchObject({ ramPerVcpuGb: 4, pricePerVcpuHr: 0.04 });
    expect(await repository.listCpuFlavors()).toHaveLength(6);
    expect(await repository.findDataCenter('EU-RO-1')).toMatchObject({ countryCode: 'RO', listed: true });
  });

  it('applies overrides: changed fields, added ids, unlisted data centers; then stays stable', async () => {
    const overrides = parseCatalogOverrides({
      gpuTypes: {
        'NVIDIA L4': { securePrice: 0.39, communityPrice: null },
        'NVIDIA GH200 480GB': { displayName: 'GH200', memoryInGb: 96, securePrice: 3.19 },
      },
      cpuFlavors: { cpu3c: { pricePerVcpuHr: 0.025 } },
      dataCenters: { 'US-TX-1': { listed: false } },
    });
    expect(await seedCatalog(db, overrides)).toEqual({ created: 1, updated: 3, unchanged: 79 });
    expect(await seedCatalog(db, overrides)).toEqual({ created: 0, updated: 0, unchanged: 83 });

    expect(await repository.findGpuType('NVIDIA L4')).toMatchObject({
      securePrice: 0.39,
      communityPrice: null,
      memoryInGb: 24,
    });
    expect(await repository.findGpuType('NVIDIA GH200 480GB')).toMatchObject({
      displayName: 'GH200',
      manufacturer: 'NVIDIA',
      gfdProduct: 'NVIDIA-GH200-480GB',
      securePrice: 3.19,
      communityPrice: null,
    });
    expect(await repository.findCpuFlavor('cpu3c')).toMatchObject({ pricePerVcpuHr: 0.025 });
    expect((await repository.listDataCenters()).map((d) => d.id)).not.toContain('US-TX-1');
    expect(await repository.listDataCenters({ includeUnlisted: true })).toHaveLength(26);

    // Back to the defaults: overridden rows revert, the added GPU type stays for history.
    expect(await seedCatalog(db)).toEqual({ created: 0, updated: 3, unchanged: 79 });
    expect(await repository.findGpuType('NVIDIA L4')).toMatchObject({ securePrice: 0.43, communityPrice: 0.39 });
    expect(await repository.listGpuTypes()).toHaveLength(51);
  });
});
