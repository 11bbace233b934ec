import type { CatalogRepository, DataCenterEntry, InventorySlot } from '@runplane/catalog';

/** Free capacity per machine now, as the scheduler keeps it (placement's CapacityRepository.freeNow). */
export interface InventorySource {
  freeNow(now: Date): Promise<InventorySlot[]>;
}

/** What an availability answer is computed from: the machines' free capacity and the data centers, read once. */
export interface Stock {
  machines: InventorySlot[];
  dataCenters: Map<string, DataCenterEntry>;
}

/** Reads the stock; `countryCodes` keeps only machines in data centers of those countries. */
export async function readStock(
  catalog: CatalogRepository,
  inventory: InventorySource,
  countryCodes?: readonly string[],
): Promise<Stock> {
  const [machines, centers] = await Promise.all([
    inventory.freeNow(new Date()),
    catalog.listDataCenters({ includeUnlisted: true }),
  ]);
  const dataCenters = new Map(centers.map((dc) => [dc.id, dc]));
  const inCountry = (id: string | null): boolean => {
    if (countryCodes === undefined) return true;
    const center = id === null ? undefined : dataCenters.get(id);
    return center !== undefined && countryCodes.includes(center.countryCode);
  };
  return { machines: machines.filter((m) => inCountry(m.dataCenterId)), dataCenters };
}

/** Per data center units as RunPod's `dataCenters` array: the ones with room, by id. */
export function dataCenterList(
  units: ReadonlyMap<string, number>,
  stock: Stock,
  level: (units: number) => 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH',
): { id: string; name: string; availability: 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH' }[] {
  return [...units.entries()]
    .filter(([, count]) => count > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, count]) => ({ id, name: stock.dataCenters.get(id)?.name ?? id, availability: level(count) }));
}
