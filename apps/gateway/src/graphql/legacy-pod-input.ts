import { podCreateInput, type PodCreateInput } from '@runplane/contracts';
import { parseInput } from '@runplane/http';

/** `podFindAndDeployOnDemand` and `deployCpuPod` input as runpod-python and runpodctl send it. */
export interface LegacyPodInput {
  name?: string | null;
  imageName?: string | null;
  templateId?: string | null;
  cloudType?: 'ALL' | 'SECURE' | 'COMMUNITY' | null;
  startSsh?: boolean | null;
  gpuTypeId?: string | null;
  gpuCount?: number | null;
  instanceId?: string | null;
  supportPublicIp?: boolean | null;
  minVcpuCount?: number | null;
  minMemoryInGb?: number | null;
  allowedCudaVersions?: string[] | null;
  minCudaVersion?: string | null;
  dataCenterId?: string | null;
  countryCode?: string | null;
  dockerArgs?: string | null;
  containerDiskInGb?: number | null;
  volumeInGb?: number | null;
  volumeMountPath?: string | null;
  ports?: string | null;
  env?: { key: string; value: string }[] | null;
  networkVolumeId?: string | null;
  containerRegistryAuthId?: string | null;
  minDownload?: number | null;
  minUpload?: number | null;
}

/** Drops nulls and empty strings: runpod-python writes `dataCenterId: null`, `dockerArgs: ""` for "not set". */
function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined && value !== '';
}

function set<K extends string, V>(key: K, value: V | null | undefined): Partial<Record<K, V>> {
  return present(value) ? ({ [key]: value } as Record<K, V>) : {};
}

/** The fields GPU and CPU Pods share, in `POST /v1/pods` terms. */
function common(input: LegacyPodInput): Record<string, unknown> {
  const ports = input.ports
    ?.split(',')
    .map((port) => port.trim())
    .filter((port) => port !== '');
  return {
    ...set('name', input.name),
    ...set('imageName', input.imageName),
    ...set('templateId', input.templateId),
    ...(input.cloudType && input.cloudType !== 'ALL' ? { cloudType: input.cloudType } : {}),
    ...set('dataCenterIds', present(input.dataCenterId) ? [input.dataCenterId] : null),
    ...set('countryCodes', present(input.countryCode) ? [input.countryCode] : null),
    ...set('dockerArgs', input.dockerArgs),
    ...set('containerDiskInGb', input.containerDiskInGb),
    ...set('volumeInGb', input.volumeInGb),
    ...set('volumeMountPath', input.volumeMountPath),
    ...set('ports', ports && ports.length > 0 ? ports : null),
    ...set('env', input.env ? Object.fromEntries(input.env.map(({ key, value }) => [key, value])) : null),
    ...set('networkVolumeId', input.networkVolumeId),
    ...set('containerRegistryAuthId', input.containerRegistryAuthId),
    ...set('supportPublicIp', input.supportPublicIp),
    ...set('minDownloadMbps', input.minDownload),
    ...set('minUploadMbps', input.minUpload),
  };
}

/** A GPU Pod's `POST /v1/pods` body, validated as that route validates it (same messages). */
export function gpuPodInput(input: LegacyPodInput): PodCreateInput {
  return parseInput(podCreateInput, {
    ...common(input),
    computeType: 'GPU',
    ...set('gpuTypeIds', present(input.gpuTypeId) ? [input.gpuTypeId] : null),
    ...set('gpuCount', input.gpuCount),
    ...set('minVCPUPerGPU', input.minVcpuCount),
    ...set('minRAMPerGPU', input.minMemoryInGb),
    ...set('allowedCudaVersions', input.allowedCudaVersions),
    ...set('minCudaVersion', input.minCudaVersion),
  });
}

/**
 * A CPU Pod's `POST /v1/pods` body from RunPod's instance id `<flavor>-<vcpus>-<ramGb>` (e.g. `cpu3c-2-4`); the memory
 * follows from the flavor's RAM per vCPU.
 */
export function cpuPodInput(input: LegacyPodInput): PodCreateInput {
  const match = /^([a-z0-9]+)-(\d+)-(\d+)$/.exec(input.instanceId ?? '');
  return parseInput(podCreateInput, {
    ...common(input),
    computeType: 'CPU',
    ...(match ? { cpuFlavorIds: [match[1]], vcpuCount: Number(match[2]) } : { cpuFlavorIds: [input.instanceId ?? ''] }),
  });
}
