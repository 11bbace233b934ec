export type { Catalog, CpuFlavorEntry, DataCenterEntry, GpuTypeEntry, PublicTemplateEntry } from './entries';
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
export { DEFAULT_GPU_POOLS, poolsByGpuType } from './data/gpu-pools';
export { DEFAULT_PUBLIC_TEMPLATES } from './data/public-templates';
export {
  CATALOG_ACCOUNT_ID,
  buildPublicTemplates,
  seedPublicTemplates,
  type TemplateOverrides,
} from './public-templates';
export {
  availabilityLevel,
  cpuUnitsByDataCenter,
  gpuUnitsByDataCenter,
  totalUnits,
  type AvailabilityLevel,
  type CpuShape,
  type GpuShape,
  type InventorySlot,
} from './availability';
