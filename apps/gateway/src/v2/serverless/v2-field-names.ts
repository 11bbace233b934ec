import { DomainError, ValidationError } from '@runplane/contracts';

/** v1 endpoint fields as a v2 body names them. */
const RENAMES: Record<string, string> = {
  workersMin: 'workers.min',
  workersMax: 'workers.max',
  idleTimeout: 'workers.idleTimeout',
  gpuTypeIds: 'gpu.pools',
  gpuCount: 'gpu.count',
  allowedCudaVersions: 'gpu.allowedCudaVersions',
  minCudaVersion: 'gpu.minCudaVersion',
  cpuFlavorIds: 'cpu',
  vcpuCount: 'cpu',
  networkVolumeId: 'networkVolumes',
  networkVolumeIds: 'networkVolumes',
  executionTimeoutMs: 'timeout',
  containerRegistryAuthId: 'registry',
  imageName: 'image',
  dockerStartCmd: 'args',
  containerDiskInGb: 'disk',
};

/**
 * Runs a v1 service call for a v2 request: a ValidationError naming a v1 field (`workersMin: ...`,
 * `networkVolumeIds.0: ...`) is reworded with the v2 field (`workers.min: ...`, `networkVolumes.0: ...`).
 */
export async function inV2Terms<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'VALIDATION_FAILED') throw error;
    const match = /^([A-Za-z]\w*)((?:\.\d+)?: .*)$/s.exec(error.message);
    const renamed = match?.[1] === undefined ? undefined : RENAMES[match[1]];
    if (!match || renamed === undefined) throw error;
    throw new ValidationError(`${renamed}${match[2]}`);
  }
}
