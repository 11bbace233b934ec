import {
  availabilityLevel,
  type CatalogRepository,
  type GpuTypeEntry,
  gpuUnitsByDataCenter,
  totalUnits,
} from '@runplane/catalog';
import { NotFoundError } from '@runplane/contracts';
import { checkAvailabilityQuery, GPU_FILTERS } from './catalog-query';
import type { GpuQuery, GpuTypeView } from './catalog.schemas';
import { dataCenterList, type InventorySource, readStock, type Stock } from './inventory';

const MANUFACTURERS = new Set(['NVIDIA', 'AMD']);

/** A catalog GPU type as RunPod's GpuType, without availability. Serverless workers bill the secure price. */
export function gpuTypeView(gpu: GpuTypeEntry): GpuTypeView {
  const serverless = gpu.pool !== null && gpu.securePrice !== null ? { serverless: gpu.securePrice } : {};
  return {
    id: gpu.id,
    name: gpu.displayName,
    pool: gpu.pool,
    manufacturer: MANUFACTURERS.has(gpu.manufacturer) ? (gpu.manufacturer as 'NVIDIA' | 'AMD') : 'UNKNOWN',
    memory: gpu.memoryInGb,
    secure: gpu.secureCloud,
    community: gpu.communityCloud,
    price: { secure: gpu.securePrice ?? 0, community: gpu.communityPrice ?? 0, ...serverless },
    maxCount: {
      secure: gpu.secureCloud ? gpu.maxGpuCount : 0,
      community: gpu.communityCloud ? gpu.maxGpuCount : 0,
    },
  };
}

/**
 * Free units of a GPU type per data center for the asked products: Pods and clusters may use every machine of the
 * type; serverless workers only when the type is in a pool. Machines report no CUDA version, so the CUDA filters
 * narrow nothing and `cudaVersions` is absent (as RunPod answers for machines that report none).
 */
function unitsFor(gpu: GpuTypeEntry, query: GpuQuery, stock: Stock): Map<string, number> {
  const products = query.product ?? [];
  const podLike = products.some((product) => product !== 'SERVERLESS');
  if (!podLike && gpu.pool === null) return new Map();
  const shape = { gpuTypeId: gpu.id, count: query.count ?? 1, secureCloud: query.cloud !== 'COMMUNITY' };
  return gpuUnitsByDataCenter(stock.machines, shape);
}

function withAvailability(gpu: GpuTypeEntry, query: GpuQuery, stock: Stock): GpuTypeView {
  const units = unitsFor(gpu, query, stock);
  const centers = dataCenterList(units, stock, availabilityLevel);
  return {
    ...gpuTypeView(gpu),
    availability: availabilityLevel(totalUnits(units)),
    ...(centers.length > 0 ? { dataCenters: centers } : {}),
  };
}

/** `/v2/catalog/gpus`: the catalog's GPU types, with availability from the scheduler's inventory when asked. */
export class GpuCatalog {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly inventory: InventorySource,
  ) {}

  async list(query: GpuQuery): Promise<GpuTypeView[]> {
    const gpus = await this.catalog.listGpuTypes();
    if (!checkAvailabilityQuery(query, GPU_FILTERS)) return gpus.map(gpuTypeView);
    const stock = await readStock(this.catalog, this.inventory, query.countryCodes);
    // With countryCodes, a type with no machine in those countries drops out of the list.
    const present = new Set(stock.machines.map((m) => m.gpuTypeId));
    return gpus
      .filter((gpu) => query.countryCodes === undefined || present.has(gpu.id))
      .map((gpu) => withAvailability(gpu, query, stock));
  }

  async get(id: string, query: GpuQuery): Promise<GpuTypeView> {
    const wanted = checkAvailabilityQuery(query, GPU_FILTERS);
    const gpu = await this.catalog.findGpuType(id);
    if (!gpu) throw new NotFoundError('GPU type');
    if (!wanted) return gpuTypeView(gpu);
    return withAvailability(gpu, query, await readStock(this.catalog, this.inventory, query.countryCodes));
  }
}
