/** Stock as RunPod's v2 catalog words it. */
export type AvailabilityLevel = 'NONE' | 'LOW' | 'MEDIUM' | 'HIGH';

/** A machine's free capacity as the scheduler's inventory keeps it (placement's InventoryMachine satisfies this). */
export interface InventorySlot {
  gpuTypeId: string | null;
  dataCenterId: string | null;
  gpuFree: number;
  cpuFree: number;
  memoryFreeGb: number;
  /** CPU flavors a CPU-only machine serves; empty means any. */
  cpuFlavorIds: readonly string[];
  secureCloud: boolean;
  /** Ready and schedulable: other machines never receive Pods and count for nothing. */
  ready: boolean;
}

/**
 * Free units → level: how many more Pods (or workers) of the asked shape fit right now. None is NONE, one or two
 * LOW, three to seven MEDIUM, eight or more HIGH (a thin spot shows as LOW before it runs out).
 */
export function availabilityLevel(units: number): AvailabilityLevel {
  if (units <= 0) return 'NONE';
  if (units <= 2) return 'LOW';
  if (units <= 7) return 'MEDIUM';
  return 'HIGH';
}

/** The shape of one GPU unit: `count` GPUs of a type on one machine of the cloud. */
export interface GpuShape {
  gpuTypeId: string;
  count: number;
  /** Secure-cloud machines, or community ones. */
  secureCloud: boolean;
}

/** Free units of a GPU shape per data center, over the data centers that have a machine of the type at all. */
export function gpuUnitsByDataCenter(machines: readonly InventorySlot[], shape: GpuShape): Map<string, number> {
  const units = new Map<string, number>();
  for (const machine of machines) {
    if (machine.gpuTypeId !== shape.gpuTypeId || machine.dataCenterId === null) continue;
    if (machine.secureCloud !== shape.secureCloud) continue;
    const fits = machine.ready ? Math.floor(Math.max(0, machine.gpuFree) / shape.count) : 0;
    units.set(machine.dataCenterId, (units.get(machine.dataCenterId) ?? 0) + fits);
  }
  return units;
}

/** The shape of one CPU unit: `vcpuCount` vCPUs of a flavor with its RAM per vCPU, on a CPU-only machine. */
export interface CpuShape {
  flavorId: string;
  vcpuCount: number;
  ramPerVcpuGb: number;
}

/** Free units of a CPU shape per data center, over the data centers with a CPU machine serving the flavor. */
export function cpuUnitsByDataCenter(machines: readonly InventorySlot[], shape: CpuShape): Map<string, number> {
  const units = new Map<string, number>();
  for (const machine of machines) {
    if (machine.gpuTypeId !== null || machine.dataCenterId === null) continue;
    if (machine.cpuFlavorIds.length > 0 && !machine.cpuFlavorIds.includes(shape.flavorId)) continue;
    const byCpu = Math.floor(Math.max(0, machine.cpuFree) / shape.vcpuCount);
    const byMemory = Math.floor(Math.max(0, machine.memoryFreeGb) / (shape.vcpuCount * shape.ramPerVcpuGb));
    const fits = machine.ready ? Math.min(byCpu, byMemory) : 0;
    units.set(machine.dataCenterId, (units.get(machine.dataCenterId) ?? 0) + fits);
  }
  return units;
}

/** The sum of units over data centers. */
export function totalUnits(units: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const value of units.values()) total += value;
  return total;
}
