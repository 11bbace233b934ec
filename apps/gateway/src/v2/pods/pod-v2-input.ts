import type { PodCreateInput, PodUpdateInput } from '@runplane/contracts';
import type { Pod } from '@runplane/db';
import type { PodTemplate } from '@runplane/workloads';
import { ProblemError, unprocessable } from '../http/problem';
import { splitArgs } from '../shared/command-line';
import type { CreatePodRequest, PodMountsInput, UpdatePodRequest } from './pods.schemas';

/** v1 field names in the domain's messages, as v2 names them. */
export const POD_V2_NAMES: Record<string, string> = {
  imageName: 'image',
  containerDiskInGb: 'disk',
  dockerStartCmd: 'args',
  containerRegistryAuthId: 'registry',
  volumeInGb: 'mounts.persistent.size',
  volumeMountPath: 'mounts.persistent.path',
  networkVolumeId: 'mounts.network[0].volumeId',
  gpuTypeIds: 'gpu.id',
  gpuCount: 'gpu.count',
  cpuFlavorIds: 'cpu.id',
  vcpuCount: 'cpu.vcpuCount',
  allowedCudaVersions: 'gpu.allowedCudaVersions',
  minCudaVersion: 'gpu.minCudaVersion',
};

const badRequest = (detail: string): ProblemError => new ProblemError(400, detail);

/** At most one mount kind, and at most one network volume (RunPod answers both with 400). */
function checkMounts(mounts: PodMountsInput | undefined): void {
  if (mounts?.persistent && mounts.network !== undefined)
    throw badRequest('mounts: set persistent or network, not both');
  if (mounts?.network?.length === 0) throw badRequest('mounts.network: an empty list is not supported');
}

/** The compute part of a v1 create: a GPU type, or a CPU flavor. */
function computeOf(input: CreatePodRequest): Partial<PodCreateInput> {
  if (input.gpu && input.cpu) throw badRequest('gpu and cpu: a Pod is either a GPU or a CPU Pod; send one of them');
  if (input.cpu) return { computeType: 'CPU', cpuFlavorIds: [input.cpu.id], vcpuCount: input.cpu.vcpuCount };
  const gpu = input.gpu;
  if (!gpu) return { computeType: 'GPU' };
  if (gpu.minCudaVersion && (gpu.allowedCudaVersions?.length ?? 0) > 0)
    throw badRequest('gpu: allowedCudaVersions and minCudaVersion are mutually exclusive');
  return {
    computeType: 'GPU',
    gpuTypeIds: [gpu.id],
    gpuCount: gpu.count,
    ...(gpu.minRamPerGpu === undefined ? {} : { minRAMPerGPU: gpu.minRamPerGpu }),
    ...(gpu.minVcpuCountPerGpu === undefined ? {} : { minVCPUPerGPU: gpu.minVcpuCountPerGpu }),
    ...(gpu.allowedCudaVersions
      ? { allowedCudaVersions: gpu.allowedCudaVersions as PodCreateInput['allowedCudaVersions'] }
      : {}),
    ...(gpu.minCudaVersion ? { minCudaVersion: gpu.minCudaVersion as PodCreateInput['minCudaVersion'] } : {}),
  };
}

/** The storage part of a v1 create; v2 has no default volume (a template's persistent mount is kept). */
function storageOf(input: CreatePodRequest): Partial<PodCreateInput> {
  checkMounts(input.mounts);
  const network = input.mounts?.network?.[0];
  if (network) return { networkVolumeId: network.volumeId, volumeMountPath: network.path, volumeInGb: 0 };
  const persistent = input.mounts?.persistent;
  if (persistent) return { volumeInGb: persistent.size, volumeMountPath: persistent.path };
  return input.templateId ? {} : { volumeInGb: 0 };
}

/** `POST /v2/pods` as v1's create input (the domain's). */
export function toV1Create(input: CreatePodRequest): PodCreateInput {
  if (input.image === undefined && input.templateId === undefined) throw unprocessable(["$: missing property 'image'"]);
  return {
    name: input.name,
    cloudType: input.cloud,
    gpuTypePriority: 'availability',
    gpuCount: 1,
    cpuFlavorPriority: 'availability',
    vcpuCount: 2,
    dataCenterPriority: 'availability',
    minRAMPerGPU: 8,
    minVCPUPerGPU: 2,
    globalNetworking: input.globalNetworking,
    interruptible: false,
    locked: false,
    ...computeOf(input),
    ...storageOf(input),
    ...(input.image === undefined ? {} : { imageName: input.image }),
    ...(input.templateId === undefined ? {} : { templateId: input.templateId }),
    ...(input.dataCenterIds === undefined ? {} : { dataCenterIds: input.dataCenterIds }),
    ...(input.disk === undefined ? {} : { containerDiskInGb: input.disk }),
    ...(input.ports === undefined ? {} : { ports: input.ports }),
    ...(input.env === undefined ? {} : { env: input.env }),
    ...(input.args === undefined ? {} : { dockerStartCmd: splitArgs(input.args) }),
    ...(input.registry ? { containerRegistryAuthId: input.registry } : {}),
  } as PodCreateInput;
}

/** A PATCH's mounts against the Pod's: the kind is fixed at create, and a network volume cannot change. */
function mountChanges(row: Pod, mounts: PodMountsInput | undefined): Partial<PodUpdateInput> {
  checkMounts(mounts);
  if (!mounts || (!mounts.persistent && !mounts.network)) return {};
  const network = mounts.network?.[0];
  if (network) {
    if (row.networkVolumeId === null) throw badRequest('mounts.network: the Pod was created without a network volume');
    if (network.volumeId !== row.networkVolumeId) throw badRequest('mounts.network[0].volumeId: cannot change');
    return { volumeMountPath: network.path };
  }
  if (row.networkVolumeId !== null || row.volumeInGb === 0)
    throw badRequest('mounts.persistent: the Pod was created without a persistent volume');
  const persistent = mounts.persistent as NonNullable<PodMountsInput['persistent']>;
  return { volumeInGb: persistent.size, volumeMountPath: persistent.path };
}

/** What a template brings to a PATCH that names it: its container settings (the body's own fields win). */
function templateFields(template: PodTemplate | null, input: UpdatePodRequest): Partial<PodUpdateInput> {
  if (!template) return {};
  return {
    imageName: template.imageName,
    dockerStartCmd: template.dockerStartCmd,
    env: { ...template.env, ...input.env },
    ports: template.ports,
    containerDiskInGb: template.containerDiskInGb,
    ...(template.containerRegistryAuthId ? { containerRegistryAuthId: template.containerRegistryAuthId } : {}),
  };
}

/** `PATCH /v2/pods/{id}` as v1's update input; `template` is the one `templateId` names, when it changes. */
export function toV1Update(row: Pod, input: UpdatePodRequest, template: PodTemplate | null): PodUpdateInput {
  return {
    ...templateFields(template, input),
    ...mountChanges(row, input.mounts),
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.image === undefined ? {} : { imageName: input.image }),
    ...(input.disk === undefined ? {} : { containerDiskInGb: input.disk }),
    ...(input.env === undefined || template ? {} : { env: input.env }),
    ...(input.ports === undefined ? {} : { ports: input.ports }),
    ...(input.args === undefined ? {} : { dockerStartCmd: splitArgs(input.args) }),
    ...(input.registry === undefined ? {} : { containerRegistryAuthId: input.registry }),
    ...(input.globalNetworking === undefined ? {} : { globalNetworking: input.globalNetworking }),
    ...(input.locked === undefined ? {} : { locked: input.locked }),
  };
}
