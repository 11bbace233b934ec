import { z } from 'zod';
import { coldStartDto } from '../waiting';
import {
  CLOUD_TYPES,
  commandArgs,
  COMPUTE_TYPES,
  CUDA_VERSIONS,
  DESIRED_STATUSES,
  diskGb,
  envMap,
  imageRef,
  mountPath,
  portList,
  queryArray,
  queryBoolean,
  refId,
  removableRefId,
  resourceName,
  SELECTION_PRIORITIES,
} from './common';

// GPU types, CPU flavors and data centers are catalog ids an operator can extend, so they are checked against the
// catalog by the service rather than by a static enum here.
const catalogId = z.string().trim().min(1).max(191);
const catalogIds = z.array(catalogId).max(64);
const command = commandArgs(256);
const bandwidth = z.number().min(0).max(1_000_000);

/** Body of `POST /v1/pods` (RunPod's PodCreateInput). Fields a template can supply have no default here. */
export const podCreateInput = z.strictObject({
  name: resourceName.default('my pod'),
  imageName: imageRef.optional(),
  templateId: refId.optional(),
  computeType: z.enum(COMPUTE_TYPES).default('GPU'),
  cloudType: z.enum(CLOUD_TYPES).default('SECURE'),
  gpuTypeIds: catalogIds.optional(),
  gpuTypePriority: z.enum(SELECTION_PRIORITIES).default('availability'),
  gpuCount: z.number().int().min(1).max(64).default(1),
  cpuFlavorIds: catalogIds.optional(),
  cpuFlavorPriority: z.enum(SELECTION_PRIORITIES).default('availability'),
  vcpuCount: z.number().int().min(1).max(512).default(2),
  dataCenterIds: catalogIds.optional(),
  dataCenterPriority: z.enum(SELECTION_PRIORITIES).default('availability'),
  countryCodes: z
    .array(z.string().regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code'))
    .max(300)
    .optional(),
  allowedCudaVersions: z.array(z.enum(CUDA_VERSIONS)).max(CUDA_VERSIONS.length).optional(),
  /** Sent by runpodctl: the oldest acceptable CUDA version (turned into allowedCudaVersions). */
  minCudaVersion: z.enum(CUDA_VERSIONS).optional(),
  minRAMPerGPU: z.number().int().min(0).max(4096).default(8),
  minVCPUPerGPU: z.number().int().min(0).max(512).default(2),
  minDiskBandwidthMBps: bandwidth.optional(),
  minDownloadMbps: bandwidth.optional(),
  minUploadMbps: bandwidth.optional(),
  supportPublicIp: z.boolean().optional(),
  globalNetworking: z.boolean().default(false),
  interruptible: z.boolean().default(false),
  locked: z.boolean().default(false),
  containerDiskInGb: diskGb.nullable().optional(),
  volumeInGb: diskGb.nullable().optional(),
  volumeMountPath: mountPath.optional(),
  networkVolumeId: refId.optional(),
  containerRegistryAuthId: refId.optional(),
  ports: portList.optional(),
  env: envMap.optional(),
  dockerEntrypoint: command.optional(),
  dockerStartCmd: command.optional(),
  /** Sent by runpodctl: the start command as one string (used when dockerStartCmd is absent). */
  dockerArgs: z.string().max(4096).optional(),
});
/** Parsed body of `POST /v1/pods`. */
export type PodCreateInput = z.infer<typeof podCreateInput>;

/** Body of `PATCH /v1/pods/{podId}` and `POST /v1/pods/{podId}/update` (RunPod's PodUpdateInput). */
export const podUpdateInput = z.strictObject({
  name: resourceName.optional(),
  imageName: imageRef.optional(),
  containerDiskInGb: diskGb.nullable().optional(),
  volumeInGb: diskGb.nullable().optional(),
  volumeMountPath: mountPath.optional(),
  containerRegistryAuthId: removableRefId.optional(),
  ports: portList.optional(),
  env: envMap.optional(),
  dockerEntrypoint: command.optional(),
  dockerStartCmd: command.optional(),
  globalNetworking: z.boolean().optional(),
  locked: z.boolean().optional(),
});
/** Parsed body of a Pod update. */
export type PodUpdateInput = z.infer<typeof podUpdateInput>;

/** Include flags of `GET /v1/pods` and `GET /v1/pods/{podId}`. */
export const podIncludeQuery = z.object({
  includeMachine: queryBoolean,
  includeNetworkVolume: queryBoolean,
  includeSavingsPlans: queryBoolean,
  includeTemplate: queryBoolean,
  includeWorkers: queryBoolean,
});
/** Parsed include flags of a Pod read. */
export type PodIncludeQuery = z.infer<typeof podIncludeQuery>;

const filterText = z.string().min(1).max(191);

/** Query of `GET /v1/pods`: every filter of the spec (array filters repeat their key) plus the include flags. */
export const podListQuery = podIncludeQuery.extend({
  computeType: z.enum(COMPUTE_TYPES).optional(),
  cpuFlavorId: queryArray(filterText).optional(),
  dataCenterId: queryArray(filterText).optional(),
  desiredStatus: z.enum(DESIRED_STATUSES).optional(),
  endpointId: filterText.optional(),
  gpuTypeId: queryArray(filterText).optional(),
  id: filterText.optional(),
  imageName: z.string().min(1).max(512).optional(),
  name: filterText.optional(),
  networkVolumeId: filterText.optional(),
  templateId: filterText.optional(),
});
/** Parsed query of `GET /v1/pods`. */
export type PodListQuery = z.infer<typeof podListQuery>;

const money = z.number();

/** A GPU type with its prices, as nested in a Pod (`gpu`) and a Machine (`gpuType`). */
export const podGpuDto = z.object({
  id: z.string(),
  count: z.number().int(),
  displayName: z.string(),
  securePrice: money.nullable(),
  communityPrice: money.nullable(),
  oneMonthPrice: money.nullable(),
  threeMonthPrice: money.nullable(),
  sixMonthPrice: money.nullable(),
  oneWeekPrice: money.nullable(),
  communitySpotPrice: money.nullable(),
  secureSpotPrice: money.nullable(),
});

/** The host machine of a Pod (`includeMachine`). */
export const podMachineDto = z.object({
  id: z.string(),
  costPerHr: money,
  cpuCount: z.number().int(),
  cpuType: z
    .object({
      id: z.string(),
      displayName: z.string(),
      cores: z.number(),
      threadsPerCore: z.number(),
      groupId: z.string(),
    })
    .nullable(),
  cpuTypeId: z.string().nullable(),
  currentPricePerGpu: money,
  dataCenterId: z.string().nullable(),
  diskThroughputMBps: z.number().int().nullable(),
  gpuAvailable: z.number().int(),
  gpuDisplayName: z.string().nullable(),
  gpuType: podGpuDto.nullable(),
  gpuTypeId: z.string().nullable(),
  location: z.string().nullable(),
  maintenanceEnd: z.string().nullable(),
  maintenanceNote: z.string().nullable(),
  maintenanceStart: z.string().nullable(),
  maxDownloadSpeedMbps: z.number().int().nullable(),
  maxUploadSpeedMbps: z.number().int().nullable(),
  minPodGpuCount: z.number().int(),
  note: z.string().nullable(),
  secureCloud: z.boolean(),
  supportPublicIp: z.boolean(),
});

/** A savings plan applied to a Pod (`includeSavingsPlans`). */
export const savingsPlanDto = z.object({
  id: z.string(),
  podId: z.string(),
  gpuTypeId: z.string(),
  costPerHr: money,
  startTime: z.string(),
  endTime: z.string(),
});

/** The network volume attached to a Pod (`includeNetworkVolume`). */
export const podNetworkVolumeDto = z.object({
  id: z.string(),
  name: z.string(),
  size: z.number().int(),
  dataCenterId: z.string(),
});

/**
 * A Pod as the v1 API returns it; `imageName` repeats `image`, `aiApiId` repeats `endpointId`, and `gpuTypeId` and
 * `gpuCount` repeat `gpu.id` and `gpu.count` (0 for a CPU Pod), as runpodctl reads them.
 */
export const podDto = z.object({
  id: z.string(),
  name: z.string(),
  image: z.string(),
  imageName: z.string(),
  desiredStatus: z.enum(DESIRED_STATUSES),
  locked: z.boolean(),
  interruptible: z.boolean(),
  computeType: z.enum(COMPUTE_TYPES),
  cloudType: z.enum(CLOUD_TYPES),
  gpu: podGpuDto.nullable(),
  gpuTypeId: z.string().nullable(),
  gpuCount: z.number().int(),
  cpuFlavorId: z.string().nullable(),
  vcpuCount: z.number(),
  memoryInGb: z.number(),
  costPerHr: money,
  adjustedCostPerHr: money,
  containerDiskInGb: z.number().int(),
  volumeInGb: z.number().int(),
  volumeMountPath: z.string(),
  volumeEncrypted: z.boolean(),
  networkVolumeId: z.string().nullable(),
  containerRegistryAuthId: z.string().nullable(),
  templateId: z.string().nullable(),
  endpointId: z.string().nullable(),
  aiApiId: z.string().nullable(),
  slsVersion: z.number().int(),
  consumerUserId: z.string(),
  machineId: z.string().nullable(),
  dataCenterId: z.string().nullable(),
  ports: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  dockerEntrypoint: z.array(z.string()),
  dockerStartCmd: z.array(z.string()),
  publicIp: z.string().nullable(),
  portMappings: z.record(z.string(), z.number().int()).nullable(),
  lastStartedAt: z.string().nullable(),
  lastStatusChange: z.string().nullable(),
  createdAt: z.string(),
  /** Runplane's, on workers: when it reached each cold-start phase (placed … firstJob). */
  coldStart: coldStartDto.optional(),
  machine: podMachineDto.nullable().optional(),
  networkVolume: podNetworkVolumeDto.nullable().optional(),
  savingsPlans: z.array(savingsPlanDto).optional(),
  /** The template the Pod was created from (`includeTemplate`), as the templates API returns it. */
  template: z.record(z.string(), z.unknown()).nullable().optional(),
});
/** A Pod on the wire. */
export type PodDto = z.infer<typeof podDto>;
/** A GPU type nested in a Pod or Machine. */
export type PodGpuDto = z.infer<typeof podGpuDto>;
/** A Pod's machine on the wire. */
export type PodMachineDto = z.infer<typeof podMachineDto>;
/** A savings plan on the wire. */
export type SavingsPlanDto = z.infer<typeof savingsPlanDto>;
/** A Pod's network volume on the wire. */
export type PodNetworkVolumeDto = z.infer<typeof podNetworkVolumeDto>;
