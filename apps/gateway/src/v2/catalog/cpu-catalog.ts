import {
  availabilityLevel,
  type CatalogRepository,
  type CpuFlavorEntry,
  cpuUnitsByDataCenter,
  totalUnits,
} from '@runplane/catalog';
import { NotFoundError } from '@runplane/contracts';
import { checkAvailabilityQuery, CPU_FILTERS } from './catalog-query';
import type { CpuQuery, CpuTypeView } from './catalog.schemas';
import { dataCenterList, type InventorySource, readStock, type Stock } from './inventory';

/** A catalog CPU flavor as RunPod's CpuType (`cpu5` → group `Gen 5`); serverless bills the Pod price. */
export function cpuTypeView(flavor: CpuFlavorEntry): CpuTypeView {
  const generation = /(\d+)$/.exec(flavor.groupId)?.[1];
  return {
    id: flavor.id,
    name: flavor.displayName,
    group: generation === undefined ? flavor.groupId : `Gen ${generation}`,
    vcpu: { min: flavor.minVcpu, max: flavor.maxVcpu },
    ramGbPerVcpu: flavor.ramPerVcpuGb,
    price: { securePerVcpu: flavor.pricePerVcpuHr, serverlessPerVcpu: flavor.pricePerVcpuHr },
  };
}

/** Free units of the flavor at `vcpuCount` (default: its smallest size) per data center, on CPU-only machines. */
function withAvailability(flavor: CpuFlavorEntry, query: CpuQuery, stock: Stock): CpuTypeView {
  const shape = {
    flavorId: flavor.id,
    vcpuCount: query.vcpuCount ?? flavor.minVcpu,
    ramPerVcpuGb: flavor.ramPerVcpuGb,
  };
  const fits = shape.vcpuCount >= flavor.minVcpu && shape.vcpuCount <= flavor.maxVcpu;
  const units = fits ? cpuUnitsByDataCenter(stock.machines, shape) : new Map<string, number>();
  const centers = dataCenterList(units, stock, availabilityLevel);
  return {
    ...cpuTypeView(flavor),
    availability: availabilityLevel(totalUnits(units)),
    ...(centers.length > 0 ? { dataCenters: centers } : {}),
  };
}

/** `/v2/catalog/cpus`: the catalog's CPU flavors, with availability from the scheduler's inventory when asked. */
export class CpuCatalog {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly inventory: InventorySource,
  ) {}

  async list(query: CpuQuery): Promise<CpuTypeView[]> {
    const flavors = await this.catalog.listCpuFlavors();
    if (!checkAvailabilityQuery(query, CPU_FILTERS)) return flavors.map(cpuTypeView);
    const stock = await readStock(this.catalog, this.inventory);
    return flavors.map((flavor) => withAvailability(flavor, query, stock));
  }

  async get(id: string, query: CpuQuery): Promise<CpuTypeView> {
    const wanted = checkAvailabilityQuery(query, CPU_FILTERS);
    const flavor = await this.catalog.findCpuFlavor(id);
    if (!flavor) throw new NotFoundError('CPU type');
    if (!wanted) return cpuTypeView(flavor);
    return withAvailability(flavor, query, await readStock(this.catalog, this.inventory));
  }
}
