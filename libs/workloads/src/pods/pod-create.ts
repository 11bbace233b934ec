import { CUDA_VERSIONS, NotFoundError, type PodCreateInput, type TemplateDto, ValidationError } from '@runplane/contracts';
import type { NetworkVolume, Prisma } from '@runplane/db';
import { statusNote } from './pod-lifecycle';
import { chooseGpuType, type PodCatalog, type PodCpuFlavor, roundMoney } from './pod-pricing';
import type { PodRepository } from './pod.repository';

/** The template fields a Pod takes as defaults. */
export type PodTemplate = Pick<
  TemplateDto,
  | 'id'
  | 'imageName'
  | 'containerDiskInGb'
  | 'volumeInGb'
  | 'volumeMountPath'
  | 'ports'
  | 'env'
  | 'dockerEntrypoint'
  | 'dockerStartCmd'
  | 'containerRegistryAuthId'
>;

/** Templates a caller may use (own or public); `TemplatesService` of this lib, wired by the gateway. */
export interface PodTemplateSource {
  /** The template, or NotFoundError when it is neither the caller's nor public. */
  findUsable(accountId: string, templateId: string): Promise<PodTemplate>;
}

/** RunPod's defaults for Pods created without a template. */
const DEFAULTS = { containerDiskInGb: 50, volumeInGb: 20, volumeMountPath: '/workspace', ports: ['8888/http', '22/tcp'] };

type Shape = Pick<Prisma.PodUncheckedCreateInput, 'gpuTypeId' | 'gpuCount' | 'cpuFlavorId' | 'vcpuCount' | 'memoryInGb' | 'costPerHr'>;

/** Container settings: the request's values, else the template's, else RunPod's defaults. */
export function mergeContainer(input: PodCreateInput, template: PodTemplate | null) {
  const image = input.imageName ?? template?.imageName;
  if (image === undefined) throw new ValidationError('imageName: required unless templateId is given');
  const startCmd = input.dockerStartCmd ?? (input.dockerArgs?.trim() ? input.dockerArgs.trim().split(/\s+/) : undefined);
  return {
    image,
    containerDiskInGb: input.containerDiskInGb ?? template?.containerDiskInGb ?? DEFAULTS.containerDiskInGb,
    volumeInGb: input.volumeInGb ?? template?.volumeInGb ?? DEFAULTS.volumeInGb,
    volumeMountPath: input.volumeMountPath ?? template?.volumeMountPath ?? DEFAULTS.volumeMountPath,
    ports: input.ports ?? template?.ports ?? DEFAULTS.ports,
    env: { ...(template?.env ?? {}), ...(input.env ?? {}) },
    dockerEntrypoint: input.dockerEntrypoint ?? template?.dockerEntrypoint ?? [],
    dockerStartCmd: startCmd ?? template?.dockerStartCmd ?? [],
    containerRegistryAuthId: input.containerRegistryAuthId ?? template?.containerRegistryAuthId ?? null,
  };
}

/** CUDA versions a Pod accepts: the explicit list, else every version at least `minCudaVersion`. */
export function cudaVersions(input: PodCreateInput): string[] {
  if (input.allowedCudaVersions) return input.allowedCudaVersions;
  if (!input.minCudaVersion) return [];
  return CUDA_VERSIONS.slice(0, CUDA_VERSIONS.indexOf(input.minCudaVersion) + 1);
}

/** What the caller asked for, kept on the row for placement and restarts. */
function requestedShape(input: PodCreateInput) {
  return {
    locked: input.locked,
    interruptible: input.interruptible,
    cloudType: input.cloudType,
    computeType: input.computeType,
    gpuTypeIds: input.gpuTypeIds ?? [],
    gpuTypePriority: input.gpuTypePriority,
    cpuFlavorIds: input.cpuFlavorIds ?? [],
    cpuFlavorPriority: input.cpuFlavorPriority,
    dataCenterPriority: input.dataCenterPriority,
    countryCodes: (input.countryCodes ?? []).map((code) => code.toUpperCase()),
    allowedCudaVersions: cudaVersions(input),
    minRAMPerGPU: input.minRAMPerGPU,
    minVCPUPerGPU: input.minVCPUPerGPU,
    minDiskBandwidthMBps: input.minDiskBandwidthMBps ?? null,
    minDownloadMbps: input.minDownloadMbps ?? null,
    minUploadMbps: input.minUploadMbps ?? null,
    supportPublicIp: input.supportPublicIp ?? null,
    globalNetworking: input.globalNetworking,
  };
}

/** Turns a validated create request into a Pod row: template defaults, references and catalog checks, placement. */
export class PodCreationPlanner {
  constructor(
    private readonly pods: PodRepository,
    private readonly catalog: PodCatalog,
    private readonly templates: PodTemplateSource,
  ) {}

  async plan(accountId: string, id: string, input: PodCreateInput, now: Date): Promise<Prisma.PodUncheckedCreateInput> {
    const template = input.templateId === undefined ? null : await this.templates.findUsable(accountId, input.templateId);
    const container = mergeContainer(input, template);
    const dataCenterIds = await this.checkDataCenters(input.dataCenterIds ?? []);
    const volume = await this.checkVolume(accountId, input.networkVolumeId, dataCenterIds);
    if (container.containerRegistryAuthId !== null && !(await this.pods.ownsRegistryAuth(accountId, container.containerRegistryAuthId))) {
      throw new NotFoundError('Container registry auth');
    }
    const shape = input.computeType === 'GPU' ? await this.placeGpu(input) : await this.placeCpu(input);
    return {
      id,
      accountId,
      name: input.name,
      templateId: template?.id ?? null,
      ...container,
      ...requestedShape(input),
      dataCenterIds,
      ...shape,
      // Placement for now: the volume's data center, else the first allowed one; the scheduler issue refines it.
      dataCenterId: volume?.dataCenterId ?? dataCenterIds[0] ?? null,
      networkVolumeId: volume?.id ?? null,
      adjustedCostPerHr: shape.costPerHr,
      lastStartedAt: now,
      lastStatusChange: statusNote('Rented', now),
      lastStatusChangeAt: now,
    };
  }

  private async checkDataCenters(ids: string[]): Promise<string[]> {
    for (const [index, id] of ids.entries()) {
      if (!(await this.catalog.findDataCenter(id))) throw new ValidationError(`dataCenterIds.${index}: unknown data center "${id}"`);
    }
    return [...new Set(ids)];
  }

  private async checkVolume(accountId: string, id: string | undefined, dataCenterIds: string[]): Promise<NetworkVolume | null> {
    if (id === undefined) return null;
    const volume = await this.pods.findNetworkVolume(accountId, id);
    if (!volume) throw new NotFoundError('Network volume');
    if (dataCenterIds.length > 0 && !dataCenterIds.includes(volume.dataCenterId)) {
      throw new ValidationError(
        `networkVolumeId: the network volume is in ${volume.dataCenterId}, which is not one of dataCenterIds (${dataCenterIds.join(', ')})`,
      );
    }
    return volume;
  }

  private async placeGpu(input: PodCreateInput): Promise<Shape> {
    const ids = input.gpuTypeIds ?? [];
    const candidates = ids.length === 0 ? await this.catalog.listGpuTypes() : await Promise.all(ids.map((id, index) => this.gpuType(id, index)));
    const chosen = chooseGpuType(candidates, { ...input, priorityListGiven: ids.length > 0 });
    if (!chosen) {
      const offer = `${input.gpuCount} GPU${input.gpuCount > 1 ? 's' : ''} in ${input.cloudType} cloud${input.interruptible ? ' as interruptible' : ''}`;
      throw new ValidationError(`gpuTypeIds: none of the GPU types is offered with ${offer}`);
    }
    return {
      gpuTypeId: chosen.gpu.id,
      gpuCount: input.gpuCount,
      cpuFlavorId: null,
      vcpuCount: Math.max(1, input.minVCPUPerGPU * input.gpuCount),
      memoryInGb: input.minRAMPerGPU * input.gpuCount,
      costPerHr: chosen.costPerHr,
    };
  }

  private async gpuType(id: string, index: number) {
    const gpu = await this.catalog.findGpuType(id);
    if (!gpu) throw new ValidationError(`gpuTypeIds.${index}: unknown GPU type "${id}"`);
    return gpu;
  }

  private async placeCpu(input: PodCreateInput): Promise<Shape> {
    const ids = input.cpuFlavorIds ?? [];
    let candidates: PodCpuFlavor[];
    if (ids.length > 0) {
      candidates = [];
      for (const [index, id] of ids.entries()) {
        const flavor = await this.catalog.findCpuFlavor(id);
        if (!flavor) throw new ValidationError(`cpuFlavorIds.${index}: unknown CPU flavor "${id}"`);
        candidates.push(flavor);
      }
    } else {
      candidates = [...(await this.catalog.listCpuFlavors())].sort((a, b) => a.pricePerVcpuHr - b.pricePerVcpuHr);
    }
    const flavor = candidates.find((entry) => entry.minVcpu <= input.vcpuCount && input.vcpuCount <= entry.maxVcpu);
    if (!flavor) throw new ValidationError(`vcpuCount: ${input.vcpuCount} vCPUs is not offered by ${ids.length > 0 ? ids.join(', ') : 'any CPU flavor'}`);
    return {
      gpuTypeId: null,
      gpuCount: 0,
      cpuFlavorId: flavor.id,
      vcpuCount: input.vcpuCount,
      memoryInGb: input.vcpuCount * flavor.ramPerVcpuGb,
      costPerHr: roundMoney(input.vcpuCount * flavor.pricePerVcpuHr),
    };
  }
}
