import type { V1PriorityClass } from '@kubernetes/client-node';
import { MANAGED_BY, LABELS, PRIORITY_CLASS_NAMES } from '../labels';

/** Priority of interruptible (spot) workloads: below the default 0, so any ordinary pod may preempt them. */
export const INTERRUPTIBLE_PRIORITY = -100;
/** Priority of on-demand workloads. */
export const ON_DEMAND_PRIORITY = 1000;

/**
 * The two PriorityClasses workload pods name. Interruptible pods never preempt anyone (preemptionPolicy Never) and
 * are the victims when an on-demand pod needs their GPUs; kube-scheduler then marks them with a DisruptionTarget
 * condition (reason PreemptionByScheduler), which readPodStatus reports as `preempted`.
 */
export function buildPriorityClasses(): V1PriorityClass[] {
  const labels = { [LABELS.managedBy]: MANAGED_BY };
  return [
    {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: PRIORITY_CLASS_NAMES.interruptible, labels },
      value: INTERRUPTIBLE_PRIORITY,
      preemptionPolicy: 'Never',
      globalDefault: false,
      description: 'Runplane interruptible (spot) workloads: never preempt, preempted first.',
    },
    {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: PRIORITY_CLASS_NAMES.onDemand, labels },
      value: ON_DEMAND_PRIORITY,
      preemptionPolicy: 'PreemptLowerPriority',
      globalDefault: false,
      description: 'Runplane on-demand workloads: may preempt interruptible ones.',
    },
  ];
}
