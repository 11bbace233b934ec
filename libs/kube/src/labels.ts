/** Labels and annotations Runplane puts on every object it creates, so the scheduler can rebuild its view. */
export const LABELS = {
  podId: 'runplane.io/pod-id',
  accountId: 'runplane.io/account-id',
  endpointId: 'runplane.io/endpoint-id',
  volumeId: 'runplane.io/volume-id',
  registryAuthId: 'runplane.io/registry-auth-id',
  /** `pod` (a v1 Pod) or `worker` (a serverless endpoint worker). */
  kind: 'runplane.io/kind',
  managedBy: 'app.kubernetes.io/managed-by',
  /** What a non-workload object is part of (`volume-s3`: a data center's S3 endpoint). */
  component: 'app.kubernetes.io/component',
  /** The data center an object serves. */
  dataCenter: 'runplane.io/data-center',
} as const;

/** Annotation with the desired-spec generation a workload object was built from. */
export const GENERATION_ANNOTATION = 'runplane.io/generation';

/** Value of `app.kubernetes.io/managed-by` on Runplane's objects. */
export const MANAGED_BY = 'runplane';

/** Label selector matching every object Runplane manages. */
export const MANAGED_SELECTOR = `${LABELS.managedBy}=${MANAGED_BY}`;

/** The NVIDIA device plugin's extended resource. */
export const GPU_RESOURCE = 'nvidia.com/gpu';

/** Node labels written by NVIDIA GPU Feature Discovery. */
export const GFD_LABELS = {
  /** Sanitised NVML product name, e.g. `NVIDIA-H100-80GB-HBM3`. */
  product: 'nvidia.com/gpu.product',
  count: 'nvidia.com/gpu.count',
  /** Memory per GPU in MiB. */
  memory: 'nvidia.com/gpu.memory',
} as const;

/** Well-known topology labels; Runplane's data-center id is the region. */
export const TOPOLOGY_LABELS = {
  region: 'topology.kubernetes.io/region',
  zone: 'topology.kubernetes.io/zone',
} as const;

/** PriorityClass names: interruptible (spot) workloads never preempt and are preempted by on-demand ones. */
export const PRIORITY_CLASS_NAMES = {
  interruptible: 'runplane-interruptible',
  onDemand: 'runplane-on-demand',
} as const;

/** What a workload pod runs: a v1 Pod or a serverless endpoint worker. */
export type WorkloadKind = 'pod' | 'worker';

/** Labels every Runplane object carries: the managed-by marker plus the owning account. */
export function baseLabels(accountId: string): Record<string, string> {
  return { [LABELS.managedBy]: MANAGED_BY, [LABELS.accountId]: accountId };
}
