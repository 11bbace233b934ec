import {
  availabilityLevel,
  type AvailabilityLevel,
  type CatalogRepository,
  type GpuTypeEntry,
  gpuUnitsByDataCenter,
  type InventorySlot,
  totalUnits,
} from '@runplane/catalog';
import { podCreateInput } from '@runplane/contracts';

/** Free capacity per machine now, as the scheduler keeps it (placement's CapacityRepository.freeNow). */
export interface FreeCapacity {
  freeNow(now: Date): Promise<InventorySlot[]>;
}

/** RunPod's GraphQL stock levels; null where nothing is free (runpodctl leaves such a GPU out of `gpu list`). */
const STOCK: Record<AvailabilityLevel, string | null> = { HIGH: 'High', MEDIUM: 'Medium', LOW: 'Low', NONE: null };

interface LowestPriceInput {
  gpuCount?: number | null;
  dataCenterId?: string | null;
  secureCloud?: boolean | null;
  /** runpodctl `get cloud --mem`/`--vcpu`: per GPU, as podFindAndDeployOnDemand reads them (minRAMPerGPU, minVCPUPerGPU). */
  minMemoryInGb?: number | null;
  minVcpuCount?: number | null;
}

/** A GPU Pod's RAM and vCPUs per GPU when the create input names none (POST /v1/pods' defaults). */
const PER_GPU = {
  memoryInGb: podCreateInput.shape.minRAMPerGPU.parse(undefined),
  vcpuCount: podCreateInput.shape.minVCPUPerGPU.parse(undefined),
};

/** The catalog reads of the legacy GraphQL API: `gpuTypes`, `dataCenters`, `serverlessGpuPools`. */
export class CatalogResolvers {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly capacity: FreeCapacity,
  ) {}

  /** Every GPU type, or those named by `id`/`ids`; an unknown id gives `[]` (runpod-python reads that as "no such GPU"). */
  async gpuTypes(filter: { id?: string | null; ids?: readonly string[] | null } | null | undefined) {
    const all = await this.catalog.listGpuTypes();
    const wanted = [filter?.id, ...(filter?.ids ?? [])].filter((id): id is string => typeof id === 'string');
    const gpus = wanted.length > 0 || filter?.ids ? all.filter((gpu) => wanted.includes(gpu.id)) : all;
    return gpus.map((gpu) => this.gpuType(gpu));
  }

  private gpuType(gpu: GpuTypeEntry) {
    return {
      ...gpu,
      cudaCores: null,
      lowestPrice: (args: { input?: LowestPriceInput | null }) => this.lowestPrice(gpu, args.input ?? {}),
    };
  }

  /**
   * The on-demand price (secure unless asked otherwise) and the stock of `gpuCount` GPUs of the type. `minMemory` and
   * `minVcpu` are the RAM and vCPUs a Pod of that many GPUs created with the same minimums gets; null when none fits
   * now (runpodctl's `get cloud` lists only types with a `minMemory`).
   */
  private async lowestPrice(gpu: GpuTypeEntry, input: LowestPriceInput) {
    const secureCloud = input.secureCloud ?? gpu.secureCloud;
    const count = input.gpuCount ?? 1;
    const machines = await this.capacity.freeNow(new Date());
    const units = gpuUnitsByDataCenter(machines, { gpuTypeId: gpu.id, count, secureCloud });
    const free = input.dataCenterId ? (units.get(input.dataCenterId) ?? 0) : totalUnits(units);
    return {
      gpuTypeId: gpu.id,
      gpuName: gpu.displayName,
      minimumBidPrice: secureCloud ? gpu.secureSpotPrice : gpu.communitySpotPrice,
      uninterruptablePrice: secureCloud ? gpu.securePrice : gpu.communityPrice,
      stockStatus: STOCK[availabilityLevel(free)],
      minMemory: free > 0 ? (input.minMemoryInGb ?? PER_GPU.memoryInGb) * count : null,
      minVcpu: free > 0 ? Math.max(1, (input.minVcpuCount ?? PER_GPU.vcpuCount) * count) : null,
    };
  }

  /** The listed data centers, each with the GPU types it has machines of and their stock (one GPU, either cloud). */
  async dataCenters() {
    const [centers, gpus, machines] = await Promise.all([
      this.catalog.listDataCenters(),
      this.catalog.listGpuTypes(),
      this.capacity.freeNow(new Date()),
    ]);
    const byCenter = new Map<string, { gpuTypeId: string; displayName: string; stockStatus: string | null }[]>();
    for (const gpu of gpus) {
      const units = new Map<string, number>();
      for (const secureCloud of [true, false]) {
        for (const [center, free] of gpuUnitsByDataCenter(machines, { gpuTypeId: gpu.id, count: 1, secureCloud })) {
          units.set(center, Math.max(units.get(center) ?? 0, free));
        }
      }
      for (const [center, free] of units) {
        const list = byCenter.get(center) ?? [];
        list.push({ gpuTypeId: gpu.id, displayName: gpu.displayName, stockStatus: STOCK[availabilityLevel(free)] });
        byCenter.set(center, list);
      }
    }
    return centers.map((dc) => ({
      id: dc.id,
      name: dc.name,
      location: dc.location,
      gpuAvailability: byCenter.get(dc.id) ?? [],
    }));
  }

  /** GPU type id → its serverless pool, for the types that are in one. */
  async poolOf(): Promise<Map<string, string>> {
    const gpus = await this.catalog.listGpuTypes();
    return new Map(gpus.flatMap((gpu) => (gpu.pool === null ? [] : [[gpu.id, gpu.pool] as const])));
  }

  /** The pool table (pool → its GPU types) and every catalog GPU type id, for reading `gpuIds`. */
  async gpuTable(): Promise<{ pools: Map<string, string[]>; types: Set<string> }> {
    const gpus = await this.catalog.listGpuTypes();
    const pools = new Map<string, string[]>();
    for (const gpu of gpus) if (gpu.pool !== null) pools.set(gpu.pool, [...(pools.get(gpu.pool) ?? []), gpu.id]);
    return { pools, types: new Set(gpus.map((gpu) => gpu.id)) };
  }

  /** RunPod's serverless GPU pools with the catalog GPU types in each (runpodctl maps a GPU type to `gpuIds` by it). */
  async serverlessGpuPools() {
    const { pools } = await this.gpuTable();
    return [...pools.entries()].map(([id, gpuTypeIds]) => ({ id, gpuTypeIds }));
  }
}
