import type { V1Pod } from '@runplane/kube';

const timeOf = (value: Date | string | undefined | null): Date | null =>
  value === undefined || value === null ? null : new Date(value);

/**
 * A pod's cold-start phases: scheduled when its `PodScheduled` condition turned true; image pulled at its first
 * `Pulled` Event (`pulledAt`, kubelet's "Successfully pulled" or "already present on machine"; the pod status keeps no
 * pull time), null while none was seen. Pure.
 */
export function podColdStart(
  pod: V1Pod,
  pulledAt: Date | null,
): { scheduledAt: Date | null; imagePulledAt: Date | null } {
  const scheduled = pod.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
  return {
    scheduledAt: scheduled?.status === 'True' ? timeOf(scheduled.lastTransitionTime) : null,
    imagePulledAt: pulledAt,
  };
}
