import {
  coldStartDto,
  type ColdStartDto,
  type PodDto,
  type PodGpuDto,
  type PodIncludeQuery,
  type PodMachineDto,
  type SavingsPlanDto,
} from '@runplane/contracts';
import type { Machine, SavingsPlan } from '@runplane/db';
import { adjustedCostPerHr, type PodGpuType } from './pod-pricing';
import type { ShownPodRow } from './pod.repository';

type Money = { toString(): string };
const num = (value: Money): number => Number(value.toString());
const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** A JSON column holding a string map; anything else reads as empty. */
export function stringMap(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function portMappings(value: unknown): Record<string, number> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, number] => Number.isInteger(entry[1])),
  );
}

/** The wire `gpu` object: the catalog entry with the Pod's GPU count. */
export function toGpuDto(gpu: PodGpuType, count: number): PodGpuDto {
  return {
    id: gpu.id,
    count,
    displayName: gpu.displayName,
    securePrice: gpu.securePrice,
    communityPrice: gpu.communityPrice,
    oneMonthPrice: gpu.oneMonthPrice,
    threeMonthPrice: gpu.threeMonthPrice,
    sixMonthPrice: gpu.sixMonthPrice,
    oneWeekPrice: gpu.oneWeekPrice,
    communitySpotPrice: gpu.communitySpotPrice,
    secureSpotPrice: gpu.secureSpotPrice,
  };
}

function toMachineDto(machine: Machine, gpuTypes: ReadonlyMap<string, PodGpuType>): PodMachineDto {
  const gpu = machine.gpuTypeId === null ? undefined : gpuTypes.get(machine.gpuTypeId);
  return {
    id: machine.id,
    costPerHr: num(machine.costPerHr),
    cpuCount: machine.cpuCount,
    // Nodes report a CPU model, not a flavor: cores are what the node advertises, one thread each.
    cpuType:
      machine.cpuTypeId === null
        ? null
        : {
            id: machine.cpuTypeId,
            displayName: machine.cpuTypeId,
            cores: machine.cpuCount,
            threadsPerCore: 1,
            groupId: machine.cpuTypeId,
          },
    cpuTypeId: machine.cpuTypeId,
    currentPricePerGpu: num(machine.currentPricePerGpu),
    dataCenterId: machine.dataCenterId,
    diskThroughputMBps: machine.diskThroughputMBps,
    gpuAvailable: machine.gpuAvailable,
    gpuDisplayName: gpu?.displayName ?? null,
    gpuType: gpu ? toGpuDto(gpu, machine.gpuCount) : null,
    gpuTypeId: machine.gpuTypeId,
    location: machine.location,
    maintenanceEnd: iso(machine.maintenanceEnd),
    maintenanceNote: machine.maintenanceNote,
    maintenanceStart: iso(machine.maintenanceStart),
    maxDownloadSpeedMbps: machine.maxDownloadSpeedMbps,
    maxUploadSpeedMbps: machine.maxUploadSpeedMbps,
    minPodGpuCount: machine.minPodGpuCount,
    note: machine.note,
    secureCloud: machine.secureCloud,
    supportPublicIp: machine.supportPublicIp,
  };
}

function activePlans(plans: readonly SavingsPlan[], now: Date): SavingsPlanDto[] {
  return plans
    .filter((plan) => plan.startTime <= now && now < plan.endTime)
    .map((plan) => ({
      id: plan.id,
      podId: plan.podId,
      gpuTypeId: plan.gpuTypeId,
      costPerHr: num(plan.costPerHr),
      startTime: plan.startTime.toISOString(),
      endTime: plan.endTime.toISOString(),
    }));
}

/** What a row is mapped with: the catalog's GPU types by id, the include flags and the clock. */
export interface PodMapContext {
  gpuTypes: ReadonlyMap<string, PodGpuType>;
  include: Omit<PodIncludeQuery, 'includeTemplate' | 'includeWorkers'>;
  now: Date;
}

function included(row: ShownPodRow, context: PodMapContext): Partial<PodDto> {
  const extra: Partial<PodDto> = {};
  if (context.include.includeMachine) extra.machine = row.machine ? toMachineDto(row.machine, context.gpuTypes) : null;
  if (context.include.includeNetworkVolume) {
    const volume = row.networkVolume;
    extra.networkVolume = volume
      ? { id: volume.id, name: volume.name, size: volume.size, dataCenterId: volume.dataCenterId }
      : null;
  }
  if (context.include.includeSavingsPlans) extra.savingsPlans = activePlans(row.savingsPlans, context.now);
  return extra;
}

type ComputeFields =
  'gpu' | 'gpuTypeId' | 'gpuCount' | 'cpuFlavorId' | 'vcpuCount' | 'memoryInGb' | 'costPerHr' | 'adjustedCostPerHr';

/** The Pod's compute and its price; `adjustedCostPerHr` follows the savings plans active at `now`. */
function computeOf(row: ShownPodRow, context: PodMapContext): Pick<PodDto, ComputeFields> {
  const gpu = row.gpuTypeId === null ? undefined : context.gpuTypes.get(row.gpuTypeId);
  const plans = row.savingsPlans.map((plan) => ({
    costPerHr: num(plan.costPerHr),
    startTime: plan.startTime,
    endTime: plan.endTime,
  }));
  const costPerHr = num(row.costPerHr);
  return {
    gpu: gpu ? toGpuDto(gpu, row.gpuCount) : null,
    gpuTypeId: row.gpuTypeId,
    gpuCount: row.gpuTypeId === null ? 0 : row.gpuCount,
    cpuFlavorId: row.cpuFlavorId,
    vcpuCount: row.vcpuCount,
    memoryInGb: row.memoryInGb,
    costPerHr,
    adjustedCostPerHr: adjustedCostPerHr(costPerHr, plans, context.now),
  };
}

type StorageFields =
  | 'containerDiskInGb'
  | 'volumeInGb'
  | 'volumeMountPath'
  | 'volumeEncrypted'
  | 'networkVolumeId'
  | 'containerRegistryAuthId'
  | 'templateId';

/** The Pod's disks and what its container comes from. */
function storageOf(row: ShownPodRow): Pick<PodDto, StorageFields> {
  return {
    containerDiskInGb: row.containerDiskInGb,
    volumeInGb: row.volumeInGb,
    volumeMountPath: row.volumeMountPath,
    volumeEncrypted: row.volumeEncrypted,
    networkVolumeId: row.networkVolumeId,
    containerRegistryAuthId: row.containerRegistryAuthId,
    templateId: row.templateId,
  };
}

/** A worker's cold-start phases, Runplane's extension (a Pod that is no worker has none, and is not parsed). */
function coldStartOf(row: ShownPodRow): { coldStart?: ColdStartDto } {
  if (row.endpointId === null || row.coldStart === null) return {};
  const parsed = coldStartDto.safeParse(row.coldStart);
  return parsed.success ? { coldStart: parsed.data } : {};
}

/** Maps a Pod row to its wire form; `adjustedCostPerHr` follows the savings plans active at `now`. */
export function toPodDto(row: ShownPodRow, context: PodMapContext): PodDto {
  return {
    id: row.id,
    name: row.name,
    image: row.image,
    imageName: row.image,
    desiredStatus: row.desiredStatus,
    locked: row.locked,
    interruptible: row.interruptible,
    computeType: row.computeType,
    cloudType: row.cloudType,
    ...computeOf(row, context),
    ...storageOf(row),
    endpointId: row.endpointId,
    aiApiId: row.endpointId,
    slsVersion: row.slsVersion,
    consumerUserId: row.accountId,
    machineId: row.machineId,
    dataCenterId: row.dataCenterId,
    ports: row.ports,
    env: stringMap(row.env),
    dockerEntrypoint: row.dockerEntrypoint,
    dockerStartCmd: row.dockerStartCmd,
    publicIp: row.publicIp,
    portMappings: portMappings(row.portMappings),
    lastStartedAt: iso(row.lastStartedAt),
    lastStatusChange: row.lastStatusChange,
    createdAt: row.createdAt.toISOString(),
    ...coldStartOf(row),
    ...included(row, context),
  };
}
