import type { V1ContainerStatus, V1Pod, V1PodCondition } from '@kubernetes/client-node';
import { WORKLOAD_CONTAINER } from '../builders/workload-pod';
import { toDate } from './dates';

/**
 * What Runplane reports for a workload pod. The names are the scheduler's PodPhase values; PENDING (nothing created
 * yet) and TERMINATED (object gone) are never read from an existing pod.
 */
export type ObservedPodPhase = 'CREATING' | 'RUNNING' | 'STOPPING' | 'EXITED' | 'FAILED' | 'UNKNOWN';

/** Status of a workload pod as read from the apiserver. */
export interface ObservedPodStatus {
  phase: ObservedPodPhase;
  nodeName: string | null;
  /** When the workload container last started running (else the pod's start time). */
  startedAt: Date | null;
  /** kube-scheduler evicted it for a higher-priority pod (DisruptionTarget / PreemptionByScheduler). */
  preempted: boolean;
  /** PodScheduled=False reason and message, e.g. "Unschedulable: 0/4 nodes are available: ...". */
  unschedulable: { reason: string; message: string } | null;
  restartCount: number;
  /** Why the container is not running yet or any more (ErrImagePull, CrashLoopBackOff, ...). */
  waitingReason: string | null;
  /** Exit code of the last termination of the container, if any. */
  exitCode: number | null;
  /** One human-readable line for the status message. */
  message: string | null;
}

function condition(pod: V1Pod, type: string): V1PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

function workloadContainer(pod: V1Pod): V1ContainerStatus | undefined {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.find((s) => s.name === WORKLOAD_CONTAINER) ?? statuses[0];
}

function phaseOf(pod: V1Pod): ObservedPodPhase {
  const phase = pod.status?.phase;
  if (phase === 'Succeeded') return 'EXITED';
  if (phase === 'Failed') return 'FAILED';
  if (pod.metadata?.deletionTimestamp) return 'STOPPING';
  switch (phase) {
    case 'Running':
      return 'RUNNING';
    case 'Unknown':
      return 'UNKNOWN';
    default:
      // Pending, or no status yet: waiting for a node, pulling the image, or starting.
      return 'CREATING';
  }
}

/** Map a Kubernetes pod to Runplane's observed status. */
export function readPodStatus(pod: V1Pod): ObservedPodStatus {
  const scheduled = condition(pod, 'PodScheduled');
  const disruption = condition(pod, 'DisruptionTarget');
  const container = workloadContainer(pod);
  const unschedulable =
    scheduled?.status === 'False'
      ? { reason: scheduled.reason ?? 'Unschedulable', message: scheduled.message ?? '' }
      : null;
  const waitingReason = container?.state?.waiting?.reason ?? null;
  const terminated = container?.state?.terminated ?? container?.lastState?.terminated;
  const message =
    unschedulable?.message ||
    (disruption?.status === 'True' ? disruption.message : undefined) ||
    container?.state?.waiting?.message ||
    container?.state?.terminated?.message ||
    pod.status?.message ||
    null;
  return {
    phase: phaseOf(pod),
    nodeName: pod.spec?.nodeName ?? null,
    startedAt: toDate(container?.state?.running?.startedAt) ?? toDate(pod.status?.startTime),
    preempted: disruption?.status === 'True' && disruption.reason === 'PreemptionByScheduler',
    unschedulable,
    restartCount: container?.restartCount ?? 0,
    waitingReason,
    exitCode: terminated?.exitCode ?? null,
    message,
  };
}
