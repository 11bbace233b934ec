import {
  GENERATION_ANNOTATION,
  GPU_RESOURCE,
  LABELS,
  MANAGED_BY,
  parseQuantity,
  readNodeMachine,
  readPodStatus,
  readPublishedPorts,
  type V1Node,
  type V1Pod,
  type V1Service,
} from '@runplane/kube';
import type { DriverMachine, WorkloadPhase, WorkloadSpec, WorkloadStatus } from '../compute-driver';
import { lbAddresses } from './load-balancer-ports';
import { podColdStart } from './pod-cold-start';
import { HOSTNAME_LABEL } from './workload-objects';

/** Node label an operator sets on community-cloud nodes; every other node counts as secure cloud. */
export const CLOUD_TYPE_LABEL = 'runplane.io/cloud-type';

/** Status message prefix of a workload kube-scheduler cannot place (the autoscaler shows such workers throttled). */
export const UNSCHEDULABLE_PREFIX = 'Unschedulable: ';

/** Container states that mean the workload is not doing its work even though the pod is bound and "Running". */
const CRASHED = new Set(['CrashLoopBackOff', 'RunContainerError', 'CreateContainerError', 'Error', 'OOMKilled']);

/** GPUs a pod holds on its node: the largest container GPU limit or request (requests default to limits). */
export function gpuRequestOf(pod: V1Pod): number {
  let total = 0;
  for (const container of pod.spec?.containers ?? []) {
    const value = container.resources?.limits?.[GPU_RESOURCE] ?? container.resources?.requests?.[GPU_RESOURCE];
    total += Math.floor(parseQuantity(value) ?? 0);
  }
  return total;
}

/** Whether a pod's resources are released for good (finished, or on its way out). */
export function isTerminal(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Whether a pod is one of this driver's own workloads (its namespace, Runplane's labels). */
export function isOwnWorkload(pod: V1Pod, namespace: string): boolean {
  return (
    pod.metadata?.namespace === namespace &&
    pod.metadata?.labels?.[LABELS.managedBy] === MANAGED_BY &&
    LABELS.podId in (pod.metadata?.labels ?? {})
  );
}

/**
 * GPUs per node held by pods Runplane does not account for itself (other tenants of the cluster, system pods, other
 * Runplane installations): non-terminal pods bound to a node, minus this driver's own workloads, whose GPUs the
 * scheduler subtracts from its Pod rows.
 */
export function foreignGpuUse(pods: readonly V1Pod[], namespace: string): Map<string, number> {
  const used = new Map<string, number>();
  for (const pod of pods) {
    const node = pod.spec?.nodeName;
    if (!node || isTerminal(pod) || isOwnWorkload(pod, namespace)) continue;
    const gpus = gpuRequestOf(pod);
    if (gpus > 0) used.set(node, (used.get(node) ?? 0) + gpus);
  }
  return used;
}

/**
 * A node as a machine of the inventory. Its GPU total is what the node offers (allocatable) less what foreign pods
 * hold, so the scheduler's own accounting (Pod rows) yields the free GPUs. Cordoned or blocked nodes are not ready.
 */
export function machineOf(node: V1Node, foreignGpus: number): DriverMachine {
  const facts = readNodeMachine(node);
  const gpuCount = facts.gpuProduct === null ? 0 : Math.max(0, facts.gpuAllocatable - foreignGpus);
  return {
    name: facts.name,
    gpuProduct: facts.gpuProduct,
    gpuCount,
    cpuCount: facts.cpuCount,
    memoryInGb: facts.memoryInGb,
    dataCenterId: facts.region,
    secureCloud: facts.labels[CLOUD_TYPE_LABEL] !== 'community',
    cpuFlavorIds: [],
    ready: facts.ready && facts.schedulable,
    labels: facts.labels,
  };
}

function nodeLost(nodeName: string | null, node: V1Node | undefined): string | null {
  if (nodeName === null) return null;
  if (node === undefined) return `Machine ${nodeName} is gone`;
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return ready?.status === 'True'
    ? null
    : `Machine ${nodeName} is not ready${ready?.message ? `: ${ready.message}` : ''}`;
}

function finishedAt(pod: V1Pod): Date | null {
  const stamp = pod.metadata?.deletionTimestamp;
  if (stamp) return new Date(stamp);
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt;
  return terminated ? new Date(terminated) : null;
}

/** Where the cluster stands around one workload pod. */
export interface PodContext {
  /** The pod's node from the node cache; undefined when it is gone. */
  node: V1Node | undefined;
  /** The pod's NodePort Service, if any. */
  portService: V1Service | undefined;
  /** The time of the pod's first `Pulled` Event, null when none was seen. */
  pulledAt: Date | null;
}

type ObservedPod = ReturnType<typeof readPodStatus>;

function restartsText(observed: ObservedPod): string {
  const restarts = `${observed.restartCount} restart${observed.restartCount === 1 ? '' : 's'}`;
  return observed.exitCode === null ? restarts : `${restarts} (exit code ${observed.exitCode})`;
}

/** The workload's phase and the reason it gives, from the pod's status and whether its node was lost. */
function phaseOf(observed: ObservedPod, lost: string | null): { phase: WorkloadPhase; reason: string | null } {
  const reason = observed.message ?? observed.waitingReason;
  if (lost !== null) return { phase: 'FAILED', reason: lost };
  if (observed.preempted)
    return { phase: 'FAILED', reason: observed.message ?? 'Preempted by a higher-priority workload' };
  if (observed.phase === 'RUNNING' && observed.waitingReason !== null && CRASHED.has(observed.waitingReason))
    return { phase: 'FAILED', reason: `${observed.waitingReason} after ${restartsText(observed)}` };
  if (observed.phase === 'STOPPING') return { phase: 'EXITED', reason };
  if (observed.unschedulable !== null && observed.phase === 'CREATING')
    return { phase: 'CREATING', reason: `${UNSCHEDULABLE_PREFIX}${observed.unschedulable.message}` };
  if (observed.phase === 'UNKNOWN') return { phase: 'FAILED', reason: reason ?? 'The pod state is unknown' };
  return { phase: observed.phase, reason };
}

/**
 * The driver's status of one workload pod. A pod whose node is gone or NotReady has FAILED (no kubelet will report it
 * again); a pod preempted for a higher-priority one has FAILED with `preempted`; a crash-looping container has FAILED
 * although kubelet keeps restarting it in place; a pod being deleted has EXITED.
 */
export function workloadStatusOf(pod: V1Pod, context: PodContext): WorkloadStatus {
  const observed = readPodStatus(pod);
  const labels = pod.metadata?.labels ?? {};
  const generation = Number.parseInt(pod.metadata?.annotations?.[GENERATION_ANNOTATION] ?? '0', 10) || 0;
  const lost = nodeLost(observed.nodeName, context.node);
  const { phase, reason } = phaseOf(observed, lost);
  const running = phase === 'RUNNING';
  const published = running
    ? readPublishedPorts(context.portService, context.node)
    : { publicIp: null, portMappings: null };
  return {
    podId: labels[LABELS.podId] ?? '',
    generation,
    phase,
    startedAt: observed.startedAt,
    finishedAt: running || phase === 'CREATING' ? null : finishedAt(pod),
    machineName: observed.nodeName ?? pod.spec?.nodeSelector?.[HOSTNAME_LABEL] ?? '',
    publicIp: published.publicIp,
    portMappings: published.portMappings ?? {},
    preempted: lost === null && observed.preempted,
    reason: running ? null : reason,
    ...(running || phase === 'CREATING' ? lbAddresses(pod) : { serviceAddress: null, healthAddress: null }),
    coldStart: podColdStart(pod, context.pulledAt),
  };
}

/** A status the driver knows before (or without) a pod to read it from: just created, refused, or left over. */
export function syntheticStatus(
  spec: Pick<WorkloadSpec, 'podId' | 'generation' | 'machineName'>,
  phase: WorkloadPhase,
  reason: string | null,
): WorkloadStatus {
  return {
    podId: spec.podId,
    generation: spec.generation,
    phase,
    startedAt: null,
    finishedAt: phase === 'FAILED' || phase === 'EXITED' ? new Date() : null,
    machineName: spec.machineName,
    publicIp: null,
    portMappings: {},
    preempted: false,
    reason,
    serviceAddress: null,
    healthAddress: null,
  };
}
