import type { CpuFlavor, DataCenter, DbClient, GpuType } from '@runplane/db';
import type { CpuFlavorEntry, DataCenterEntry, GpuTypeEntry } from './entries';

type Money = { toString(): string } | null;

function money(value: Money): number | null {
  return value === null ? null : Number(value.toString());
}

function toGpuType(row: GpuType): GpuTypeEntry {
  return {
    id: row.id,
    displayName: row.displayName,
    manufacturer: row.manufacturer,
    memoryInGb: row.memoryInGb,
    gfdProduct: row.gfdProduct,
    maxGpuCount: row.maxGpuCount,
    pool: row.pool,
    secureCloud: row.secureCloud,
    communityCloud: row.communityCloud,
    securePrice: money(row.securePrice),
    communityPrice: money(row.communityPrice),
    secureSpotPrice: money(row.secureSpotPrice),
    communitySpotPrice: money(row.communitySpotPrice),
    oneWeekPrice: money(row.oneWeekPrice),
    oneMonthPrice: money(row.oneMonthPrice),
    threeMonthPrice: money(row.threeMonthPrice),
    sixMonthPrice: money(row.sixMonthPrice),
  };
}

function toCpuFlavor({ createdAt: _c, updatedAt: _u, pricePerVcpuHr, ...rest }: CpuFlavor): CpuFlavorEntry {
  return { ...rest, pricePerVcpuHr: money(pricePerVcpuHr) ?? 0 };
}

function toDataCenter({ createdAt: _c, updatedAt: _u, ...rest }: DataCenter): DataCenterEntry {
  return rest;
}

/** Reads of the catalog (GPU types, CPU flavors, data centers), with prices as plain numbers. */
export class CatalogRepository {
  constructor(private readonly db: DbClient) {}

  /** All GPU types, by id. */
  async listGpuTypes(): Promise<GpuTypeEntry[]> {
    return (await this.db.gpuType.findMany({ orderBy: { id: 'asc' } })).map(toGpuType);
  }

  /** One GPU type, or null when the id is unknown. */
  async findGpuType(id: string): Promise<GpuTypeEntry | null> {
    const row = await this.db.gpuType.findUnique({ where: { id } });
    return row === null ? null : toGpuType(row);
  }

  /** The GPU types carrying this GFD product label (legacy id spellings share one model). */
  async findGpuTypesByGfdProduct(gfdProduct: string): Promise<GpuTypeEntry[]> {
    return (await this.db.gpuType.findMany({ where: { gfdProduct }, orderBy: { id: 'asc' } })).map(toGpuType);
  }

  /** All CPU flavors, by id. */
  async listCpuFlavors(): Promise<CpuFlavorEntry[]> {
    return (await this.db.cpuFlavor.findMany({ orderBy: { id: 'asc' } })).map(toCpuFlavor);
  }

  /** One CPU flavor, or null when the id is unknown. */
  async findCpuFlavor(id: string): Promise<CpuFlavorEntry | null> {
    const row = await this.db.cpuFlavor.findUnique({ where: { id } });
    return row === null ? null : toCpuFlavor(row);
  }

  /** Data centers, by id; unlisted ones only when asked. */
  async listDataCenters(options: { includeUnlisted?: boolean } = {}): Promise<DataCenterEntry[]> {
    const where = options.includeUnlisted === true ? {} : { listed: true };
    return (await this.db.dataCenter.findMany({ where, orderBy: { id: 'asc' } })).map(toDataCenter);
  }

  /** One data center, or null when the id is unknown. */
  async findDataCenter(id: string): Promise<DataCenterEntry | null> {
    const row = await this.db.dataCenter.findUnique({ where: { id } });
    return row === null ? null : toDataCenter(row);
  }
}
