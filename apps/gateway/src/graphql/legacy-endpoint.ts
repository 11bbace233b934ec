import type { EndpointDto, NetworkVolumeDto } from '@runplane/contracts';

/** What mapping an endpoint needs besides the endpoint: its GPU types' pools and the account's volumes. */
export interface EndpointLookups {
  /** GPU type id → serverless pool id (the catalog's pool table). */
  poolOf: ReadonlyMap<string, string>;
  volumes: ReadonlyMap<string, NetworkVolumeDto>;
}

/**
 * `gpuIds` as RunPod writes it: the comma-separated pools the endpoint's GPU types belong to, in first-seen order;
 * a GPU type in no pool (a Pod-only card chosen through v1 or v2) is listed by its own id.
 */
export function gpuIdsOf(gpuTypeIds: readonly string[], poolOf: ReadonlyMap<string, string>): string {
  const ids: string[] = [];
  for (const type of gpuTypeIds) {
    const id = poolOf.get(type) ?? type;
    if (!ids.includes(id)) ids.push(id);
  }
  return ids.join(',');
}

/**
 * An endpoint in the shape of RunPod's GraphQL `Endpoint`: `gpuIds`, `locations` and `allowedCudaVersions` as comma
 * strings, `env` as `{key, value}` pairs, `flashBootType` from the flashboot switch. Runplane has no AI API keys,
 * so `aiKey` is null; `workersStandby` is the number of workers kept warm (`workersMin`).
 */
export function legacyEndpoint(endpoint: EndpointDto, lookups: EndpointLookups) {
  const volume = endpoint.networkVolumeId ? lookups.volumes.get(endpoint.networkVolumeId) : undefined;
  return {
    id: endpoint.id,
    name: endpoint.name,
    userId: endpoint.userId,
    templateId: endpoint.templateId,
    version: endpoint.version,
    type: 'QUEUE',
    aiKey: null,
    gpuIds: gpuIdsOf(endpoint.gpuTypeIds, lookups.poolOf),
    gpuCount: endpoint.gpuCount,
    locations: endpoint.dataCenterIds.join(','),
    networkVolumeId: endpoint.networkVolumeId ?? null,
    networkVolume: volume ? { id: volume.id, dataCenterId: volume.dataCenterId } : null,
    idleTimeout: endpoint.idleTimeout,
    scalerType: endpoint.scalerType,
    scalerValue: endpoint.scalerValue,
    workersMin: endpoint.workersMin,
    workersMax: endpoint.workersMax,
    workersStandby: endpoint.workersMin,
    executionTimeoutMs: endpoint.executionTimeoutMs,
    allowedCudaVersions: endpoint.allowedCudaVersions.join(','),
    minCudaVersion: endpoint.minCudaVersion ?? null,
    flashBootType: endpoint.flashboot ? 'FLASHBOOT' : 'OFF',
    computeType: endpoint.computeType,
    instanceIds: endpoint.instanceIds,
    networkVolumeIds: endpoint.networkVolumeIds.map((id) => ({
      networkVolumeId: id,
      dataCenterId: lookups.volumes.get(id)?.dataCenterId ?? null,
    })),
    modelReferences: [],
    env: Object.entries(endpoint.env).map(([key, value]) => ({ key, value })),
    createdAt: endpoint.createdAt,
  };
}
