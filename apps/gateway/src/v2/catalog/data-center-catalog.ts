import {
  availabilityLevel,
  type CatalogRepository,
  cpuUnitsByDataCenter,
  type DataCenterEntry,
  gpuUnitsByDataCenter,
} from '@runplane/catalog';
import { NotFoundError } from '@runplane/contracts';
import type { DataCenterListQuery, DataCenterQuery, DataCenterView } from './catalog.schemas';
import { dataCenterView } from './data-center-view';
import { type InventorySource, readStock, type Stock } from './inventory';

type Include = NonNullable<DataCenterQuery['include']>;
type Entry = { id: string; name: string; availability: 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH' };

/** Per data center: each GPU type with a machine there (one GPU per unit, either cloud). */
async function gpuAvailability(catalog: CatalogRepository, stock: Stock): Promise<Map<string, Entry[]>> {
  const byCenter = new Map<string, Entry[]>();
  for (const gpu of await catalog.listGpuTypes()) {
    for (const secureCloud of [true, false]) {
      for (const [center, units] of gpuUnitsByDataCenter(stock.machines, {
        gpuTypeId: gpu.id,
        count: 1,
        secureCloud,
      })) {
        const list = byCenter.get(center) ?? [];
        const known = list.find((entry) => entry.id === gpu.id);
        const level = availabilityLevel(units);
        if (!known) list.push({ id: gpu.id, name: gpu.displayName, availability: level });
        else if (units > 0) known.availability = level;
        byCenter.set(center, list);
      }
    }
  }
  return byCenter;
}

/** Per data center: each CPU flavor a CPU-only machine there serves (its smallest size per unit). */
async function cpuAvailability(catalog: CatalogRepository, stock: Stock): Promise<Map<string, Entry[]>> {
  const byCenter = new Map<string, Entry[]>();
  for (const flavor of await catalog.listCpuFlavors()) {
    const shape = { flavorId: flavor.id, vcpuCount: flavor.minVcpu, ramPerVcpuGb: flavor.ramPerVcpuGb };
    for (const [center, units] of cpuUnitsByDataCenter(stock.machines, shape)) {
      const list = byCenter.get(center) ?? [];
      list.push({ id: flavor.id, name: flavor.displayName, availability: availabilityLevel(units) });
      byCenter.set(center, list);
    }
  }
  return byCenter;
}

function matches(view: DataCenterView, query: DataCenterListQuery): boolean {
  if (query.regions !== undefined && !query.regions.includes(view.region)) return false;
  if (query.networkVolumeTypes?.some((type) => !view.networkVolumeTypes.includes(type))) return false;
  if (query.compliance?.some((item) => !view.compliance.includes(item))) return false;
  return query.globalNetwork === undefined || view.globalNetwork === query.globalNetwork;
}

/** `/v2/catalog/datacenters`: the listed data centers, with what their machines have free when asked. */
export class DataCenterCatalog {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly inventory: InventorySource,
  ) {}

  async list(query: DataCenterListQuery): Promise<DataCenterView[]> {
    const views = (await this.catalog.listDataCenters()).map(dataCenterView).filter((view) => matches(view, query));
    return this.withAvailability(views, query.include ?? []);
  }

  async get(id: string, query: DataCenterQuery): Promise<DataCenterView> {
    const entry: DataCenterEntry | null = await this.catalog.findDataCenter(id);
    if (!entry) throw new NotFoundError('Data center');
    const [view] = await this.withAvailability([dataCenterView(entry)], query.include ?? []);
    return view as DataCenterView;
  }

  /** Availability arrays are omitted for a data center with nothing of the kind. */
  private async withAvailability(views: DataCenterView[], include: Include): Promise<DataCenterView[]> {
    if (include.length === 0) return views;
    const stock = await readStock(this.catalog, this.inventory);
    const gpus = include.includes('GPU_AVAILABILITY') ? await gpuAvailability(this.catalog, stock) : new Map();
    const cpus = include.includes('CPU_AVAILABILITY') ? await cpuAvailability(this.catalog, stock) : new Map();
    return views.map((view) => {
      const gpuAvailability = gpus.get(view.id) as Entry[] | undefined;
      const cpuAvailability = cpus.get(view.id) as Entry[] | undefined;
      return {
        ...view,
        ...(gpuAvailability ? { gpuAvailability } : {}),
        ...(cpuAvailability ? { cpuAvailability } : {}),
      };
    });
  }
}
