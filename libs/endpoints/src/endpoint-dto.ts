// An endpoint's wire form, from its row and the env of its template (none when the caller may no longer use it).
import type { EndpointDto } from '@runplane/contracts';
import type { Endpoint } from '@runplane/db';

function envOf(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/**
 * The wire env is the template's env under the endpoint's own entries: workers run the template, and the
 * template's edits reach its endpoints without copying. A template the account may no longer use adds nothing.
 */
export function toEndpointDto(row: Endpoint, templateEnv: Record<string, string> | null | undefined): EndpointDto {
  return {
    id: row.id,
    name: row.name,
    userId: row.accountId,
    templateId: row.templateId,
    version: row.version,
    computeType: row.computeType,
    gpuTypeIds: row.gpuTypeIds,
    gpuCount: row.gpuCount,
    cpuFlavorIds: row.cpuFlavorIds,
    vcpuCount: row.vcpuCount,
    instanceIds: row.instanceIds,
    dataCenterIds: row.dataCenterIds,
    ...(row.networkVolumeId === null ? {} : { networkVolumeId: row.networkVolumeId }),
    networkVolumeIds: row.networkVolumeIds,
    allowedCudaVersions: row.allowedCudaVersions,
    ...(row.minCudaVersion === null ? {} : { minCudaVersion: row.minCudaVersion }),
    env: { ...templateEnv, ...envOf(row.env) },
    executionTimeoutMs: row.executionTimeoutMs,
    idleTimeout: row.idleTimeout,
    scalerType: row.scalerType,
    scalerValue: row.scalerValue,
    workersMin: row.workersMin,
    workersMax: row.workersMax,
    flashboot: row.flashboot,
    type: row.type,
    createdAt: row.createdAt.toISOString(),
  };
}
