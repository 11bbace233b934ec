export type { Catalog, CpuFlavorEntry, DataCenterEntry, GpuTypeEntry } from './entries';
export { CPU_FLAVOR_IDS, DEFAULT_CPU_FLAVORS } from './data/cpu-flavors';
export { DATA_CENTER_IDS, DEFAULT_DATA_CENTERS } from './data/data-centers';
export { DEFAULT_GPU_TYPES, GPU_TYPE_IDS, gfdProductLabel } from './data/gpu-types';
export {
  buildCatalog,
  CatalogOverridesError,
  loadCatalogOverrides,
  parseCatalogOverrides,
  type CatalogOverrides,
} from './overrides';
export { DEFAULT_STORAGE_PRICES } from './storage-prices';
export { seedCatalog, type SeedResult } from './seed';
export { CatalogRepository } from './catalog.repository';
