import type { GpuTypeEntry } from '../entries';
import { DEFAULT_GPU_POOLS, poolsByGpuType } from './gpu-pools';

// [id, display name, memory GB, secure $/h, community $/h (null: secure cloud only), max GPUs per pod, canonical id]
// The canonical id names the real model behind the API's legacy spellings ("NVIDIA  A30", "...3080TI").
type Row = readonly [string, string, number, number, number | null, number, string?];

const ROWS: readonly Row[] = [
  ['NVIDIA GeForce RTX 4090', 'RTX 4090', 24, 0.69, 0.34, 8],
  ['NVIDIA A40', 'A40', 48, 0.4, 0.35, 8],
  ['NVIDIA RTX A5000', 'RTX A5000', 24, 0.27, 0.16, 8],
  ['NVIDIA GeForce RTX 5090', 'RTX 5090', 32, 0.94, 0.69, 8],
  ['NVIDIA H100 80GB HBM3', 'H100 SXM', 80, 2.69, 2.39, 8],
  ['NVIDIA GeForce RTX 3090', 'RTX 3090', 24, 0.43, 0.22, 8],
  ['NVIDIA RTX A4500', 'RTX A4500', 20, 0.25, 0.19, 8],
  ['NVIDIA L40S', 'L40S', 48, 0.86, 0.79, 8],
  ['NVIDIA H200', 'H200 SXM', 141, 3.59, null, 8],
  ['NVIDIA L4', 'L4', 24, 0.43, 0.39, 8],
  ['NVIDIA RTX 6000 Ada Generation', 'RTX 6000 Ada', 48, 0.77, 0.74, 8],
  ['NVIDIA A100-SXM4-80GB', 'A100 SXM', 80, 1.74, 1.39, 8],
  ['NVIDIA RTX 4000 Ada Generation', 'RTX 4000 Ada', 20, 0.26, 0.2, 8],
  ['NVIDIA RTX A6000', 'RTX A6000', 48, 0.49, 0.33, 8],
  ['NVIDIA A100 80GB PCIe', 'A100 PCIe', 80, 1.64, 1.19, 8],
  ['NVIDIA RTX 2000 Ada Generation', 'RTX 2000 Ada', 16, 0.24, 0.19, 8],
  ['NVIDIA RTX A4000', 'RTX A4000', 16, 0.25, 0.17, 8],
  ['NVIDIA RTX PRO 6000 Blackwell Server Edition', 'RTX PRO 6000', 96, 1.79, null, 8],
  ['NVIDIA H100 PCIe', 'H100 PCIe', 80, 2.39, 1.99, 8],
  ['NVIDIA H100 NVL', 'H100 NVL', 94, 2.79, 2.59, 8],
  ['NVIDIA L40', 'L40', 48, 0.99, 0.69, 8],
  ['NVIDIA B200', 'B200', 180, 5.99, null, 8],
  ['NVIDIA GeForce RTX 3080 Ti', 'RTX 3080 Ti', 12, 0.18, 0.18, 8],
  ['NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 'RTX PRO 6000 WK', 96, 1.79, 1.69, 8],
  ['NVIDIA GeForce RTX 3080', 'RTX 3080', 10, 0.17, 0.17, 8],
  ['NVIDIA GeForce RTX 3070', 'RTX 3070', 8, 0.13, 0.13, 8],
  ['AMD Instinct MI300X OAM', 'MI300X', 192, 2.49, null, 8],
  ['NVIDIA GeForce RTX 4080 SUPER', 'RTX 4080 SUPER', 16, 0.38, 0.29, 8],
  ['Tesla V100-PCIE-16GB', 'Tesla V100', 16, 0.29, 0.19, 8],
  ['Tesla V100-SXM2-32GB', 'V100 SXM2 32GB', 32, 0.39, 0.29, 8],
  ['NVIDIA RTX 5000 Ada Generation', 'RTX 5000 Ada', 32, 0.66, 0.55, 8],
  ['NVIDIA GeForce RTX 4070 Ti', 'RTX 4070 Ti', 12, 0.23, 0.19, 8],
  ['NVIDIA RTX 4000 SFF Ada Generation', 'RTX 4000 Ada SFF', 20, 0.3, 0.24, 8],
  ['NVIDIA GeForce RTX 3090 Ti', 'RTX 3090 Ti', 24, 0.27, 0.27, 8],
  ['NVIDIA RTX A2000', 'RTX A2000', 6, 0.12, 0.1, 8],
  ['NVIDIA GeForce RTX 4080', 'RTX 4080', 16, 0.35, 0.27, 8],
  ['NVIDIA A30', 'A30', 24, 0.35, 0.22, 8],
  ['NVIDIA GeForce RTX 5080', 'RTX 5080', 16, 0.55, 0.45, 8],
  ['Tesla V100-FHHL-16GB', 'V100 FHHL', 16, 0.25, 0.19, 8],
  ['NVIDIA H200 NVL', 'H200 NVL', 143, 3.39, null, 8],
  ['Tesla V100-SXM2-16GB', 'V100 SXM2', 16, 0.29, 0.22, 8],
  ['NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition', 'RTX PRO 6000 MaxQ', 96, 1.69, 1.59, 8],
  ['NVIDIA A5000 Ada', 'RTX 5000 Ada', 32, 0.66, 0.55, 8, 'NVIDIA RTX 5000 Ada Generation'],
  ['Tesla V100-PCIE-32GB', 'V100 PCIe 32GB', 32, 0.35, 0.25, 8],
  ['NVIDIA  RTX A4500', 'RTX A4500', 20, 0.25, 0.19, 8, 'NVIDIA RTX A4500'],
  ['NVIDIA  A30', 'A30', 24, 0.35, 0.22, 8, 'NVIDIA A30'],
  ['NVIDIA GeForce RTX 3080TI', 'RTX 3080 Ti', 12, 0.18, 0.18, 8, 'NVIDIA GeForce RTX 3080 Ti'],
  ['Tesla T4', 'Tesla T4', 16, 0.19, 0.14, 8],
  ['NVIDIA RTX A30', 'A30', 24, 0.35, 0.22, 8, 'NVIDIA A30'],
  ['NVIDIA A100-SXM4-40GB', 'A100 SXM 40GB', 40, 1.19, 0.99, 8],
];

/** Every GPU type id that appears in the v1 API, legacy spellings included. */
export const GPU_TYPE_IDS: readonly string[] = ROWS.map(([id]) => id);

/** The GFD `nvidia.com/gpu.product` label for a model name: NVML's name with spaces turned into dashes. */
export function gfdProductLabel(modelName: string): string {
  return modelName.trim().replace(/\s+/g, '-');
}

const cents = (value: number): number => Math.round(value * 100) / 100;
const pools = poolsByGpuType(DEFAULT_GPU_POOLS);

// Commitment and spot prices follow fixed ratios of the on-demand price unless an operator overrides them.
function toEntry([id, displayName, memoryInGb, secure, community, maxGpuCount, canonical]: Row): GpuTypeEntry {
  return {
    id,
    displayName,
    manufacturer: id.startsWith('AMD') ? 'AMD' : 'NVIDIA',
    memoryInGb,
    gfdProduct: gfdProductLabel(canonical ?? id),
    maxGpuCount,
    pool: pools.get(id) ?? null,
    secureCloud: true,
    communityCloud: community !== null,
    securePrice: secure,
    communityPrice: community,
    secureSpotPrice: cents(secure * 0.5),
    communitySpotPrice: community === null ? null : cents(community * 0.5),
    oneWeekPrice: cents(secure * 0.95),
    oneMonthPrice: cents(secure * 0.9),
    threeMonthPrice: cents(secure * 0.85),
    sixMonthPrice: cents(secure * 0.8),
  };
}

/** Built-in GPU types with list prices (USD per GPU-hour). */
export const DEFAULT_GPU_TYPES: readonly GpuTypeEntry[] = ROWS.map(toEntry);
