/**
 * Placement: which GPU type, data center and machine a Pod (or serverless worker) gets, given what is free.
 * Pure: the scheduler loads the inventory and the request, calls {@link placePod}, and records the result.
 */

/** Secure cloud, community cloud, or either. */
export type PlacementCloudType = 'SECURE' | 'COMMUNITY' | 'ALL';

/** How to order a list of GPU types: the caller's order ("custom") or most free capacity first ("availability"). */
export type SelectionPriority = 'availability' | 'custom';

/** A machine (node) as placement sees it: totals and what is still free after running Pods and reservations. */
export interface InventoryMachine {
  id: string;
  /** Null for CPU-only machines. */
  gpuTypeId: string | null;
  dataCenterId: string | null;
  gpuCount: number;
  gpuFree: number;
  secureCloud: boolean;
  cpuFree: number;
  memoryFreeGb: number;
  /** CPU flavors this machine serves (CPU-only machines); empty means any. */
  cpuFlavorIds: readonly string[];
  /** Ready and schedulable; other machines never receive Pods. */
  ready: boolean;
}

/** What a Pod asks for. GPU type ids are already checked against the catalog and the price list. */
export interface PlacementRequest {
  computeType: 'GPU' | 'CPU';
  /** Candidate GPU types in the caller's priority order (GPU Pods). */
  gpuTypeIds: readonly string[];
  gpuTypePriority: SelectionPriority;
  gpuCount: number;
  cloudType: PlacementCloudType;
  /** Allowed data centers; empty allows all. */
  dataCenterIds: readonly string[];
  /** A network volume pins the Pod to the volume's data center. */
  volumeDataCenterId: string | null;
  /** Candidate CPU flavors in priority order (CPU Pods). */
  cpuFlavorIds: readonly string[];
  vcpuCount: number;
  memoryInGb: number;
}

/** Why one candidate could not be placed. */
export type NoCapacityReason =
  | { kind: 'not-in-inventory'; candidate: string }
  | { kind: 'data-center'; candidate: string; allowed: readonly string[] }
  | { kind: 'cloud-type'; candidate: string; cloudType: PlacementCloudType }
  | { kind: 'insufficient-gpus'; candidate: string; requested: number; mostFree: number }
  | { kind: 'insufficient-cpu'; candidate: string; requestedVcpu: number; requestedMemoryGb: number };

/** A placement, or the typed reasons why none exists. */
export type PlacementResult =
  | {
      placed: true;
      machineId: string;
      gpuTypeId: string | null;
      cpuFlavorId: string | null;
      dataCenterId: string | null;
    }
  | { placed: false; reasons: NoCapacityReason[] };

function allowedDataCenters(request: PlacementRequest): readonly string[] {
  if (request.volumeDataCenterId !== null) {
    const pinned = request.volumeDataCenterId;
    return request.dataCenterIds.length === 0 || request.dataCenterIds.includes(pinned) ? [pinned] : [];
  }
  return request.dataCenterIds;
}

function inCloud(machine: InventoryMachine, cloudType: PlacementCloudType): boolean {
  if (cloudType === 'ALL') return true;
  return cloudType === 'SECURE' ? machine.secureCloud : !machine.secureCloud;
}

/** Ready machines in id order: a scan that keeps the first of equally good machines then keeps the smallest id. */
function readyById(inventory: readonly InventoryMachine[]): InventoryMachine[] {
  return inventory.filter((m) => m.ready).sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * The machine of one candidate that takes the request, best fit first (fewest free GPUs that still fit, so large
 * requests keep finding whole machines; for CPU requests the fewest free vCPUs; the smallest id among equals, the pool
 * being in id order), with the free GPUs of all fitting machines, or the reason none can. One scan of the pool: a batch
 * of n placements on m machines costs n·m, not n·m·log m.
 */
function fitting(
  pool: readonly InventoryMachine[],
  candidate: string,
  request: PlacementRequest,
  allowed: readonly string[],
): { machine: InventoryMachine; free: number } | { reason: NoCapacityReason } {
  if (pool.length === 0) return { reason: { kind: 'not-in-inventory', candidate } };
  const located =
    allowed.length === 0 ? pool : pool.filter((m) => m.dataCenterId !== null && allowed.includes(m.dataCenterId));
  if (located.length === 0) return { reason: { kind: 'data-center', candidate, allowed } };
  const clouded = located.filter((m) => inCloud(m, request.cloudType));
  if (clouded.length === 0) return { reason: { kind: 'cloud-type', candidate, cloudType: request.cloudType } };
  const gpu = request.computeType === 'GPU';
  const fits = gpu
    ? (m: InventoryMachine) => m.gpuFree >= request.gpuCount
    : (m: InventoryMachine) => m.cpuFree >= request.vcpuCount && m.memoryFreeGb >= request.memoryInGb;
  const freeOf = gpu ? (m: InventoryMachine) => m.gpuFree : (m: InventoryMachine) => m.cpuFree;
  let best: InventoryMachine | undefined;
  let free = 0;
  for (const machine of clouded) {
    if (!fits(machine)) continue;
    free += machine.gpuFree;
    if (!best || freeOf(machine) < freeOf(best)) best = machine;
  }
  if (best) return { machine: best, free };
  if (gpu) {
    const mostFree = Math.max(...clouded.map((m) => m.gpuFree));
    return { reason: { kind: 'insufficient-gpus', candidate, requested: request.gpuCount, mostFree } };
  }
  return {
    reason: {
      kind: 'insufficient-cpu',
      candidate,
      requestedVcpu: request.vcpuCount,
      requestedMemoryGb: request.memoryInGb,
    },
  };
}

function placeGpu(
  request: PlacementRequest,
  machines: readonly InventoryMachine[],
  allowed: readonly string[],
): PlacementResult {
  const reasons: NoCapacityReason[] = [];
  const options: { gpuTypeId: string; order: number; free: number; machine: InventoryMachine }[] = [];
  for (const [order, gpuTypeId] of request.gpuTypeIds.entries()) {
    const found = fitting(
      machines.filter((m) => m.gpuTypeId === gpuTypeId),
      gpuTypeId,
      request,
      allowed,
    );
    if ('reason' in found) {
      reasons.push(found.reason);
      continue;
    }
    options.push({ gpuTypeId, order, free: found.free, machine: found.machine });
    // With the caller's order the first type that fits wins; no need to look further.
    if (request.gpuTypePriority === 'custom') break;
  }
  // "availability": the type with the most free GPUs where the request fits, the caller's order breaking ties.
  const chosen = [...options].sort(
    (a, b) => (request.gpuTypePriority === 'custom' ? 0 : b.free - a.free) || a.order - b.order,
  )[0];
  if (!chosen) return { placed: false, reasons };
  return {
    placed: true,
    machineId: chosen.machine.id,
    gpuTypeId: chosen.gpuTypeId,
    cpuFlavorId: null,
    dataCenterId: chosen.machine.dataCenterId,
  };
}

function placeCpu(
  request: PlacementRequest,
  machines: readonly InventoryMachine[],
  allowed: readonly string[],
): PlacementResult {
  const reasons: NoCapacityReason[] = [];
  const cpuMachines = machines.filter((m) => m.gpuTypeId === null);
  for (const flavor of request.cpuFlavorIds) {
    const pool = cpuMachines.filter((m) => m.cpuFlavorIds.length === 0 || m.cpuFlavorIds.includes(flavor));
    const found = fitting(pool, flavor, request, allowed);
    if ('reason' in found) {
      reasons.push(found.reason);
      continue;
    }
    const machine = found.machine;
    return {
      placed: true,
      machineId: machine.id,
      gpuTypeId: null,
      cpuFlavorId: flavor,
      dataCenterId: machine.dataCenterId,
    };
  }
  return { placed: false, reasons };
}

/**
 * Places a Pod on the inventory. GPU Pods: the first GPU type in the caller's order with a machine that has
 * `gpuCount` free GPUs in an allowed data center and cloud ("custom"), or the type with the most free GPUs
 * ("availability"). A network volume pins the data center. CPU Pods: the first CPU flavor with a CPU machine that has
 * the vCPUs and memory free. Machines that are not ready are never used.
 */
export function placePod(request: PlacementRequest, inventory: readonly InventoryMachine[]): PlacementResult {
  return placeReady(request, readyById(inventory));
}

/** {@link placePod} on the ready machines, in id order. */
function placeReady(request: PlacementRequest, machines: readonly InventoryMachine[]): PlacementResult {
  const allowed = allowedDataCenters(request);
  if (request.volumeDataCenterId !== null && allowed.length === 0) {
    const candidate = request.volumeDataCenterId;
    return { placed: false, reasons: [{ kind: 'data-center', candidate, allowed: request.dataCenterIds }] };
  }
  return request.computeType === 'GPU' ? placeGpu(request, machines, allowed) : placeCpu(request, machines, allowed);
}

/** Several identical Pods placed one after another on the same inventory: where each went, and why the rest did not fit. */
export interface BatchPlacement {
  placed: Extract<PlacementResult, { placed: true }>[];
  /** Why the next Pod found no room; empty when all of them were placed. */
  reasons: NoCapacityReason[];
}

/**
 * Places up to `count` identical Pods as {@link placePod} would place them one at a time, each seeing the capacity the
 * earlier ones took (the inventory passed in is not changed). Stops at the first Pod that does not fit.
 */
export function placeMany(
  request: PlacementRequest,
  inventory: readonly InventoryMachine[],
  count: number,
): BatchPlacement {
  const machines = readyById(inventory).map((machine) => ({ ...machine }));
  const byId = new Map(machines.map((machine) => [machine.id, machine]));
  const placed: BatchPlacement['placed'] = [];
  for (let index = 0; index < count; index += 1) {
    const result = placeReady(request, machines);
    if (!result.placed) return { placed, reasons: result.reasons };
    const machine = byId.get(result.machineId) as InventoryMachine;
    machine.gpuFree -= request.gpuCount;
    machine.cpuFree -= request.vcpuCount;
    machine.memoryFreeGb -= request.memoryInGb;
    placed.push(result);
  }
  return { placed, reasons: [] };
}

function describeReason(reason: NoCapacityReason): string {
  switch (reason.kind) {
    case 'not-in-inventory':
      return `${reason.candidate}: no machines`;
    case 'data-center':
      return `${reason.candidate}: none in ${reason.allowed.length > 0 ? reason.allowed.join(', ') : 'the requested data centers'}`;
    case 'cloud-type':
      return `${reason.candidate}: none in ${reason.cloudType} cloud`;
    case 'insufficient-gpus':
      return `${reason.candidate}: ${reason.requested} GPU${reason.requested > 1 ? 's' : ''} requested, at most ${reason.mostFree} free on one machine`;
    case 'insufficient-cpu':
      return `${reason.candidate}: ${reason.requestedVcpu} vCPUs / ${reason.requestedMemoryGb} GB not free on one machine`;
  }
}

/** RunPod's wording for "no capacity", followed by why each candidate failed. */
export function noCapacityMessage(reasons: readonly NoCapacityReason[]): string {
  const base =
    'There are no longer any instances available with the requested specifications. Please refresh and try again.';
  return reasons.length === 0 ? base : `${base} (${reasons.map(describeReason).join('; ')})`;
}
