import {
  CUDA_VERSIONS,
  DomainError,
  NotFoundError,
  type PodCreateInput,
  type TemplateDto,
  ValidationError,
} from '@runplane/contracts';
import type { NetworkVolume, Prisma } from '@runplane/db';
import { statusNote } from './pod-lifecycle';
import { offeredGpuTypes, type PodCatalog, type PodCpuFlavor, type PodGpuType, roundMoney } from './pod-pricing';
import type { PodPlacementClient, PodPlacementReply } from './pod-placement';
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
const DEFAULTS = {
  containerDiskInGb: 50,
  volumeInGb: 20,
  volumeMountPath: '/workspace',
  ports: ['8888/http', '22/tcp'],
};

type Shape = Pick<
  Prisma.PodUncheckedCreateInput,
  'gpuTypeId' | 'gpuCount' | 'cpuFlavorId' | 'vcpuCount' | 'memoryInGb' | 'costPerHr'
>;
type Placed = Extract<PodPlacementReply, { placed: true }>;
/** The placement request's part that comes from the Pod's shape; the planner adds the rest. */
type Candidates = { gpu: { gpu: PodGpuType; price: number }[]; cpu: PodCpuFlavor[] };

/** What a new Pod asks placement for: its shape, the machines' candidates and where they may be. */
interface PlacementAsk {
  accountId: string;
  podId: string;
  input: PodCreateInput;
  candidates: Candidates;
  dataCenterIds: string[];
  /** The data center of the Pod's network volume, which the machine must be in. */
  volumeDataCenterId: string | null;
}

/** The template, container settings, data centers and network volume of a create request, checked. */
interface ResolvedReferences {
  template: PodTemplate | null;
  container: ReturnType<typeof mergeContainer>;
  dataCenterIds: string[];
  volume: NetworkVolume | null;
}

/** Container settings: the request's values, else the template's, else RunPod's defaults. */
export function mergeContainer(input: PodCreateInput, template: PodTemplate | null) {
  const image = input.imageName ?? template?.imageName;
  if (image === undefined) throw new ValidationError('imageName: required unless templateId is given');
  const startCmd =
    input.dockerStartCmd ?? (input.dockerArgs?.trim() ? input.dockerArgs.trim().split(/\s+/) : undefined);
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
    private readonly placement: PodPlacementClient,
  ) {}

  async plan(accountId: string, id: string, input: PodCreateInput, now: Date): Promise<Prisma.PodUncheckedCreateInput> {
    const { template, container, dataCenterIds, volume } = await this.resolve(accountId, input);
    const candidates = input.computeType === 'GPU' ? await this.gpuCandidates(input) : await this.cpuCandidates(input);
    const volumeDataCenterId = volume?.dataCenterId ?? null;
    const placed = await this.reserve({ accountId, podId: id, input, candidates, dataCenterIds, volumeDataCenterId });
    const shape =
      input.computeType === 'GPU' ? this.gpuShape(input, candidates, placed) : this.cpuShape(input, candidates, placed);
    return {
      id,
      accountId,
      name: input.name,
      templateId: template?.id ?? null,
      ...container,
      ...requestedShape(input),
      dataCenterIds,
      ...shape,
      dataCenterId: placed.dataCenterId ?? volume?.dataCenterId ?? dataCenterIds[0] ?? null,
      machineId: placed.machineId,
      networkVolumeId: volume?.id ?? null,
      adjustedCostPerHr: shape.costPerHr,
      lastStartedAt: now,
      lastStatusChange: statusNote('Rented', now),
      lastStatusChangeAt: now,
    };
  }

  /** Checks what the request refers to: its template, data centers, network volume and registry auth. */
  private async resolve(accountId: string, input: PodCreateInput): Promise<ResolvedReferences> {
    const template =
      input.templateId === undefined ? null : await this.templates.findUsable(accountId, input.templateId);
    const container = mergeContainer(input, template);
    const dataCenterIds = await this.checkDataCenters(input.dataCenterIds ?? []);
    const volume = await this.checkVolume(accountId, input.networkVolumeId, dataCenterIds);
    if (
      container.containerRegistryAuthId !== null &&
      !(await this.pods.ownsRegistryAuth(accountId, container.containerRegistryAuthId))
    ) {
      throw new NotFoundError('Container registry auth');
    }
    return { template, container, dataCenterIds, volume };
  }

  private async checkDataCenters(ids: string[]): Promise<string[]> {
    for (const [index, id] of ids.entries()) {
      if (!(await this.catalog.findDataCenter(id)))
        throw new ValidationError(`dataCenterIds.${index}: unknown data center "${id}"`);
    }
    return [...new Set(ids)];
  }

  private async checkVolume(
    accountId: string,
    id: string | undefined,
    dataCenterIds: string[],
  ): Promise<NetworkVolume | null> {
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

  /**
   * Asks the scheduler for a machine among the candidates (reserving it for this Pod id). No capacity fails the
   * create at once, before anything is written, with RunPod's wording and status 503.
   */
  private async reserve(ask: PlacementAsk): Promise<Placed> {
    const { input, candidates } = ask;
    const reply = await this.placement.reserve({
      podId: ask.podId,
      accountId: ask.accountId,
      computeType: input.computeType,
      gpuTypeIds: candidates.gpu.map((entry) => entry.gpu.id),
      gpuTypePriority: input.gpuTypePriority,
      gpuCount: input.computeType === 'GPU' ? input.gpuCount : 0,
      cloudType: input.cloudType,
      dataCenterIds: ask.dataCenterIds,
      volumeDataCenterId: ask.volumeDataCenterId,
      cpuFlavorIds: candidates.cpu.map((flavor) => flavor.id),
      vcpuCount: input.computeType === 'GPU' ? Math.max(1, input.minVCPUPerGPU * input.gpuCount) : input.vcpuCount,
      memoryInGb: input.computeType === 'GPU' ? input.minRAMPerGPU * input.gpuCount : 0,
    });
    if (!reply.placed) throw new DomainError('NO_CAPACITY', reply.message);
    return reply;
  }

  private async gpuCandidates(input: PodCreateInput): Promise<Candidates> {
    const ids = input.gpuTypeIds ?? [];
    const known =
      ids.length === 0
        ? await this.catalog.listGpuTypes()
        : await Promise.all(ids.map((id, index) => this.gpuType(id, index)));
    const gpu = offeredGpuTypes(known, { ...input, priorityListGiven: ids.length > 0 });
    if (gpu.length === 0) {
      const offer = `${input.gpuCount} GPU${input.gpuCount > 1 ? 's' : ''} in ${input.cloudType} cloud${input.interruptible ? ' as interruptible' : ''}`;
      throw new ValidationError(`gpuTypeIds: none of the GPU types is offered with ${offer}`);
    }
    return { gpu, cpu: [] };
  }

  private gpuShape(input: PodCreateInput, candidates: Candidates, placed: Placed): Shape {
    const chosen = candidates.gpu.find((entry) => entry.gpu.id === placed.gpuTypeId) ?? candidates.gpu[0];
    if (!chosen) throw new Error('placement answered a GPU type that was not a candidate');
    return {
      gpuTypeId: chosen.gpu.id,
      gpuCount: input.gpuCount,
      cpuFlavorId: null,
      vcpuCount: Math.max(1, input.minVCPUPerGPU * input.gpuCount),
      memoryInGb: input.minRAMPerGPU * input.gpuCount,
      costPerHr: roundMoney(chosen.price * input.gpuCount),
    };
  }

  private async gpuType(id: string, index: number) {
    const gpu = await this.catalog.findGpuType(id);
    if (!gpu) throw new ValidationError(`gpuTypeIds.${index}: unknown GPU type "${id}"`);
    return gpu;
  }

  private async cpuCandidates(input: PodCreateInput): Promise<Candidates> {
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
    const cpu = candidates.filter((entry) => entry.minVcpu <= input.vcpuCount && input.vcpuCount <= entry.maxVcpu);
    if (cpu.length === 0)
      throw new ValidationError(
        `vcpuCount: ${input.vcpuCount} vCPUs is not offered by ${ids.length > 0 ? ids.join(', ') : 'any CPU flavor'}`,
      );
    return { gpu: [], cpu };
  }

  private cpuShape(input: PodCreateInput, candidates: Candidates, placed: Placed): Shape {
    const flavor = candidates.cpu.find((entry) => entry.id === placed.cpuFlavorId) ?? candidates.cpu[0];
    if (!flavor) throw new Error('placement answered a CPU flavor that was not a candidate');
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
