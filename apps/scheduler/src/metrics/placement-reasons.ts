import type { NoCapacityReason } from '@runplane/placement';

/**
 * The label of each refusal kind, closest to fitting first: a placement refused for several candidates (GPU types)
 * is counted once, under the reason of the candidate that came closest.
 */
const BY_CLOSENESS: ReadonlyArray<[NoCapacityReason['kind'], string]> = [
  ['insufficient-gpus', 'no_capacity'],
  ['insufficient-cpu', 'no_cpu_capacity'],
  ['cloud-type', 'cloud_type'],
  ['data-center', 'data_center'],
  ['not-in-inventory', 'no_gpu_type'],
];

/** Every value the `reason` label of placement failures takes. */
export const PLACEMENT_FAILURE_REASONS = [...BY_CLOSENESS.map(([, label]) => label), 'unknown'] as const;

/** The bounded reason of a refused placement (`unknown` when it gave none). */
export function placementFailureReason(reasons: readonly NoCapacityReason[]): string {
  const kinds = new Set(reasons.map((reason) => reason.kind));
  return BY_CLOSENESS.find(([kind]) => kinds.has(kind))?.[1] ?? 'unknown';
}
