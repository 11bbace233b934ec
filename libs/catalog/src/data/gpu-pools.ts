/**
 * RunPod's serverless GPU pools: an endpoint's `gpu.pools` names pools, and its workers run on any GPU type of a
 * listed pool (less `gpu.excludedTypes`). Membership follows RunPod's published pool table (Flash and serverless GPU
 * type docs): pools group GPU models by architecture and VRAM, `_PRO` pools hold data-center cards. GPU types in no
 * pool (older or consumer-only cards) serve Pods only. Operators change a pool's members in the catalog file's
 * `pools` section.
 */
export const DEFAULT_GPU_POOLS: Readonly<Record<string, readonly string[]>> = {
  AMPERE_16: ['NVIDIA RTX A4000', 'NVIDIA RTX 4000 Ada Generation', 'NVIDIA RTX 2000 Ada Generation'],
  AMPERE_24: ['NVIDIA RTX A4500', 'NVIDIA  RTX A4500', 'NVIDIA RTX A5000', 'NVIDIA GeForce RTX 3090'],
  ADA_24: ['NVIDIA L4', 'NVIDIA GeForce RTX 4090'],
  ADA_32_PRO: ['NVIDIA GeForce RTX 5090'],
  AMPERE_48: ['NVIDIA A40', 'NVIDIA RTX A6000'],
  ADA_48_PRO: ['NVIDIA L40S', 'NVIDIA L40', 'NVIDIA RTX 6000 Ada Generation'],
  AMPERE_80: ['NVIDIA A100 80GB PCIe', 'NVIDIA A100-SXM4-80GB'],
  ADA_80_PRO: ['NVIDIA H100 PCIe', 'NVIDIA H100 80GB HBM3', 'NVIDIA H100 NVL'],
  HOPPER_141: ['NVIDIA H200'],
  BLACKWELL_96: ['NVIDIA RTX PRO 6000 Blackwell Server Edition'],
  BLACKWELL_180: ['NVIDIA B200'],
};

/** GPU type id → its pool, from a pool table (a type listed in two pools keeps the first). */
export function poolsByGpuType(pools: Readonly<Record<string, readonly string[]>>): Map<string, string> {
  const byType = new Map<string, string>();
  for (const [pool, types] of Object.entries(pools)) {
    for (const type of types) if (!byType.has(type)) byType.set(type, pool);
  }
  return byType;
}
