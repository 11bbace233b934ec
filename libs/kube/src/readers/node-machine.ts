import type { V1Node, V1Taint } from '@kubernetes/client-node';
import { GFD_LABELS, GPU_RESOURCE, TOPOLOGY_LABELS } from '../labels';
import { parseQuantity } from './quantity';

/** What the scheduler mirrors of a node into its Machine inventory. */
export interface NodeMachine {
  /** Node name, unique in the cluster. */
  name: string;
  /** GFD product label, e.g. "NVIDIA-H100-80GB-HBM3"; null on CPU nodes. */
  gpuProduct: string | null;
  /** GPUs on the node (GFD count label, else the device plugin's capacity). */
  gpuCount: number;
  /** Memory per GPU in MiB (GFD label). */
  gpuMemoryMiB: number | null;
  /** GPUs the node offers to pods (allocatable `nvidia.com/gpu`); pods already bound are not subtracted. */
  gpuAllocatable: number;
  /** Data center id (region label). */
  region: string | null;
  zone: string | null;
  cpuCount: number;
  memoryInGb: number;
  /** Ready condition is True. */
  ready: boolean;
  /** Not cordoned and no taint Runplane's pods do not tolerate. */
  schedulable: boolean;
  labels: Record<string, string>;
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
}

const BLOCKING_EFFECTS = new Set(['NoSchedule', 'NoExecute']);

/** Taints Runplane's workload pods tolerate: the device plugin's GPU taint (GPU pods carry the toleration). */
function tolerated(taint: V1Taint): boolean {
  return taint.key === GPU_RESOURCE;
}

function wholeNumber(value: string | undefined): number | null {
  const parsed = parseQuantity(value);
  return parsed === undefined ? null : Math.floor(parsed);
}

/** Mirror a Kubernetes node: GFD GPU facts, topology, capacity and whether new pods can land on it. */
export function readNodeMachine(node: V1Node): NodeMachine {
  const labels = { ...(node.metadata?.labels ?? {}) };
  const capacity = { ...(node.status?.capacity ?? {}) };
  const allocatable = { ...(node.status?.allocatable ?? {}) };
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const blockingTaint = (node.spec?.taints ?? []).some((t) => BLOCKING_EFFECTS.has(t.effect) && !tolerated(t));
  const cpu = parseQuantity(allocatable['cpu'] ?? capacity['cpu']) ?? 0;
  const memoryBytes = parseQuantity(allocatable['memory'] ?? capacity['memory']) ?? 0;
  return {
    name: node.metadata?.name ?? '',
    gpuProduct: labels[GFD_LABELS.product] ?? null,
    gpuCount: wholeNumber(labels[GFD_LABELS.count]) ?? wholeNumber(capacity[GPU_RESOURCE]) ?? 0,
    gpuMemoryMiB: wholeNumber(labels[GFD_LABELS.memory]),
    gpuAllocatable: wholeNumber(allocatable[GPU_RESOURCE]) ?? 0,
    region: labels[TOPOLOGY_LABELS.region] ?? null,
    zone: labels[TOPOLOGY_LABELS.zone] ?? null,
    cpuCount: Math.floor(cpu),
    memoryInGb: Math.floor(memoryBytes / 2 ** 30),
    ready,
    schedulable: !node.spec?.unschedulable && !blockingTaint,
    labels,
    capacity,
    allocatable,
  };
}
