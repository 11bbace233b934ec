import type { CpuFlavorEntry } from '../entries';

/** CPU flavor ids accepted by the v1 API (pods take all six, endpoints the c and g families). */
export const CPU_FLAVOR_IDS = ['cpu3c', 'cpu3g', 'cpu3m', 'cpu5c', 'cpu5g', 'cpu5m'] as const;

/** Built-in CPU flavors: c = 2 GB, g = 4 GB, m = 8 GB of RAM per vCPU; cpu5 is the newer, faster generation. */
export const DEFAULT_CPU_FLAVORS: readonly CpuFlavorEntry[] = [
  {
    id: 'cpu3c',
    displayName: 'Compute-Optimized',
    groupId: 'cpu3',
    minVcpu: 2,
    maxVcpu: 32,
    ramPerVcpuGb: 2,
    pricePerVcpuHr: 0.03,
  },
  {
    id: 'cpu3g',
    displayName: 'General Purpose',
    groupId: 'cpu3',
    minVcpu: 2,
    maxVcpu: 32,
    ramPerVcpuGb: 4,
    pricePerVcpuHr: 0.04,
  },
  {
    id: 'cpu3m',
    displayName: 'Memory-Optimized',
    groupId: 'cpu3',
    minVcpu: 2,
    maxVcpu: 32,
    ramPerVcpuGb: 8,
    pricePerVcpuHr: 0.05,
  },
  {
    id: 'cpu5c',
    displayName: 'Compute-Optimized (5th gen)',
    groupId: 'cpu5',
    minVcpu: 2,
    maxVcpu: 64,
    ramPerVcpuGb: 2,
    pricePerVcpuHr: 0.035,
  },
  {
    id: 'cpu5g',
    displayName: 'General Purpose (5th gen)',
    groupId: 'cpu5',
    minVcpu: 2,
    maxVcpu: 64,
    ramPerVcpuGb: 4,
    pricePerVcpuHr: 0.045,
  },
  {
    id: 'cpu5m',
    displayName: 'Memory-Optimized (5th gen)',
    groupId: 'cpu5',
    minVcpu: 2,
    maxVcpu: 64,
    ramPerVcpuGb: 8,
    pricePerVcpuHr: 0.055,
  },
];
