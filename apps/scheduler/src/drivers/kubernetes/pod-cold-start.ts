import type { V1Pod } from '@runplane/kube';

const timeOf = (value: Date | string | undefined | null): Date | null =>
  value === undefined || value === null ? null : new Date(value);

/**
 * A pod's cold-start phases from its status: scheduled when its `PodScheduled` condition turned true; image pulled by
 * the time its container started (the pod status keeps no pull time, and a container runs only once its image is
 * pulled: the pull ends right before it). Pure.
 */
export function podColdStart(pod: V1Pod): { scheduledAt: Date | null; imagePulledAt: Date | null } {
  const scheduled = pod.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
  const container = pod.status?.containerStatuses?.[0];
  const started = container?.state?.running?.startedAt ?? container?.lastState?.terminated?.startedAt;
  return {
    scheduledAt: scheduled?.status === 'True' ? timeOf(scheduled.lastTransitionTime) : null,
    imagePulledAt: timeOf(started),
  };
}
