import { z } from '@runplane/config';
import type { DriverMachine } from '../compute-driver';

/** One machine of the local inventory, as configured (SCHEDULER_LOCAL_MACHINES, JSON). */
const machineSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9._-]{1,63}$/),
  gpuProduct: z.string().min(1).nullable().default(null),
  gpuCount: z.number().int().min(0).max(64).default(0),
  cpuCount: z.number().int().min(1).default(64),
  memoryInGb: z.number().int().min(1).default(512),
  dataCenterId: z.string().min(1).nullable().default(null),
  secureCloud: z.boolean().default(true),
  cpuFlavorIds: z.array(z.string()).default([]),
});

/** The local inventory's JSON: an array of machines. */
export const localMachinesSchema = z.array(machineSchema).min(1);

/**
 * Default local inventory: 2 × 8 RTX 4090 and 1 × 8 H100 in one data center, plus a CPU machine, so placement,
 * "no capacity" and billing behave as on a cluster.
 */
export function defaultLocalMachines(dataCenterId: string): DriverMachine[] {
  const base = {
    cpuCount: 128,
    memoryInGb: 1024,
    dataCenterId,
    secureCloud: true,
    cpuFlavorIds: [] as string[],
    ready: true,
  };
  return [
    { ...base, name: 'local-rtx4090-0', gpuProduct: 'NVIDIA-GeForce-RTX-4090', gpuCount: 8, labels: {} },
    { ...base, name: 'local-rtx4090-1', gpuProduct: 'NVIDIA-GeForce-RTX-4090', gpuCount: 8, labels: {} },
    { ...base, name: 'local-h100-0', gpuProduct: 'NVIDIA-H100-80GB-HBM3', gpuCount: 8, labels: {} },
    { ...base, name: 'local-cpu-0', gpuProduct: null, gpuCount: 0, labels: {} },
  ];
}

/** Parses SCHEDULER_LOCAL_MACHINES (already JSON-decoded) into driver machines. */
export function parseLocalMachines(value: unknown): DriverMachine[] {
  return localMachinesSchema.parse(value).map((machine) => ({ ...machine, ready: true, labels: {} }));
}
