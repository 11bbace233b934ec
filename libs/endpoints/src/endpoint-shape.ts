import { ENDPOINT_CPU_FLAVOR_IDS, ValidationError } from '@runplane/contracts';
import type { EndpointCatalog, EndpointVolumeSource } from './ports';

/** Where an endpoint's workers may run and which volumes they mount. */
export interface Placement {
  dataCenterIds: string[];
  networkVolumeIds: string[];
}

/** The CPU shape of a CPU endpoint's workers. */
export interface CpuShape {
  cpuFlavorIds: string[];
  vcpuCount: number;
  instanceIds: string[];
}

/** The network volume ids a body asks for: `networkVolumeId` leads `networkVolumeIds`; undefined when neither is given. */
export function requestedVolumeIds(input: {
  networkVolumeId?: string;
  networkVolumeIds?: string[];
}): string[] | undefined {
  if (input.networkVolumeIds === undefined && input.networkVolumeId === undefined) return undefined;
  const ids = [
    ...(input.networkVolumeId === undefined ? [] : [input.networkVolumeId]),
    ...(input.networkVolumeIds ?? []),
  ];
  return [...new Set(ids)];
}

/** Checks an endpoint's requested shape against the catalog and the account's volumes. */
export class EndpointShapeChecker {
  constructor(
    private readonly catalog: EndpointCatalog,
    private readonly volumes: EndpointVolumeSource,
  ) {}

  /** GPU types must be known and listed once; every one must offer `gpuCount` GPUs per worker. */
  async checkGpus(gpuTypeIds: string[], gpuCount: number): Promise<void> {
    const seen = new Set<string>();
    for (const [index, id] of gpuTypeIds.entries()) {
      if (seen.has(id)) throw new ValidationError(`gpuTypeIds.${index}: "${id}" is listed twice`);
      seen.add(id);
      const gpu = await this.catalog.findGpuType(id);
      if (!gpu) throw new ValidationError(`gpuTypeIds.${index}: unknown GPU type "${id}"`);
      if (gpuCount > gpu.maxGpuCount) {
        throw new ValidationError(`gpuCount: ${id} offers at most ${gpu.maxGpuCount} GPUs per worker`);
      }
    }
  }

  /** CPU flavors (default: every endpoint flavor in the catalog) with a vCPU count each of them offers. */
  async resolveCpu(requested: string[] | undefined, vcpuCount: number): Promise<CpuShape> {
    const ids = requested ?? [...ENDPOINT_CPU_FLAVOR_IDS];
    const instanceIds: string[] = [];
    const cpuFlavorIds: string[] = [];
    for (const [index, id] of [...new Set(ids)].entries()) {
      const flavor = await this.catalog.findCpuFlavor(id);
      if (!flavor) {
        if (requested === undefined) continue;
        throw new ValidationError(`cpuFlavorIds.${index}: unknown CPU flavor "${id}"`);
      }
      if (vcpuCount < flavor.minVcpu || vcpuCount > flavor.maxVcpu) {
        if (requested === undefined) continue;
        throw new ValidationError(
          `vcpuCount: ${id} offers ${flavor.minVcpu} to ${flavor.maxVcpu} vCPUs, not ${vcpuCount}`,
        );
      }
      cpuFlavorIds.push(id);
      instanceIds.push(`${id}-${vcpuCount}-${vcpuCount * flavor.ramPerVcpuGb}`);
    }
    if (cpuFlavorIds.length === 0) throw new ValidationError(`vcpuCount: no CPU flavor offers ${vcpuCount} vCPUs`);
    return { cpuFlavorIds, vcpuCount, instanceIds };
  }

  /**
   * Volumes must be the account's, one per data center, and inside the allowed data centers. Without
   * dataCenterIds the endpoint runs where its volumes are, or anywhere in the catalog when it has none.
   */
  async resolvePlacement(
    accountId: string,
    dataCenterIds: string[] | undefined,
    volumeIds: string[],
  ): Promise<Placement> {
    const volumeCenters = await this.volumeDataCenters(accountId, volumeIds);
    if (dataCenterIds === undefined) {
      const centers =
        volumeIds.length > 0 ? [...new Set(volumeCenters)] : (await this.catalog.listDataCenters()).map((dc) => dc.id);
      return { dataCenterIds: centers, networkVolumeIds: volumeIds };
    }
    for (const [index, id] of dataCenterIds.entries()) {
      if (!(await this.catalog.findDataCenter(id)))
        throw new ValidationError(`dataCenterIds.${index}: unknown data center "${id}"`);
    }
    volumeCenters.forEach((center, index) => {
      if (!dataCenterIds.includes(center)) {
        throw new ValidationError(
          `networkVolumeIds.${index}: network volume ${volumeIds[index]} is in ${center}, outside dataCenterIds`,
        );
      }
    });
    return { dataCenterIds: [...new Set(dataCenterIds)], networkVolumeIds: volumeIds };
  }

  private async volumeDataCenters(accountId: string, volumeIds: string[]): Promise<string[]> {
    const centers: string[] = [];
    for (const [index, id] of volumeIds.entries()) {
      const volume = await this.volumes.findOwned(accountId, id);
      if (!volume) throw new ValidationError(`networkVolumeIds.${index}: network volume ${id} not found`);
      if (centers.includes(volume.dataCenterId)) {
        throw new ValidationError(
          `networkVolumeIds.${index}: only one network volume per data center (${volume.dataCenterId})`,
        );
      }
      centers.push(volume.dataCenterId);
    }
    return centers;
  }
}

/** workersMin may not exceed workersMax. */
export function checkWorkerBounds(workersMin: number, workersMax: number): void {
  if (workersMin > workersMax) {
    throw new ValidationError(`workersMin: must not exceed workersMax (${workersMax}), got ${workersMin}`);
  }
}
