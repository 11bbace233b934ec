import type { CatalogRepository } from '@runplane/catalog';

/** The catalog's serverless GPU pools: which pool each GPU type is in, and each pool's types in catalog order. */
export interface PoolTable {
  poolOf: Map<string, string>;
  members: Map<string, string[]>;
}

/** Reads the pool table from the catalog's GPU types. */
export async function readPools(catalog: Pick<CatalogRepository, 'listGpuTypes'>): Promise<PoolTable> {
  const poolOf = new Map<string, string>();
  const members = new Map<string, string[]>();
  for (const gpu of await catalog.listGpuTypes()) {
    if (gpu.pool === null) continue;
    poolOf.set(gpu.id, gpu.pool);
    members.set(gpu.pool, [...(members.get(gpu.pool) ?? []), gpu.id]);
  }
  return { poolOf, members };
}

/** The pools and exclusions an endpoint's GPU types are: the pools they fall in, less the types left out. */
export function poolsOf(gpuTypeIds: readonly string[], table: PoolTable): { pools: string[]; excludedTypes: string[] } {
  const chosen = new Set(gpuTypeIds);
  const pools = [...new Set(gpuTypeIds.flatMap((id) => table.poolOf.get(id) ?? []))];
  const excludedTypes = pools.flatMap((pool) => (table.members.get(pool) ?? []).filter((id) => !chosen.has(id)));
  return { pools, excludedTypes };
}
