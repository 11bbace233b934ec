import type { PodUsageEvent } from '@runplane/contracts';

/** What tells one test pod usage event from another. */
export type PodUsageEventKey = Pick<PodUsageEvent, 'eventId' | 'accountId' | 'occurredAt' | 'type' | 'podId'>;

/**
 * A usage event of a secure, on-demand pod with one NVIDIA L4 at $0.60/hr in EU-RO-1, no disks, from image
 * `img:pod` and no template; `extra` overrides any of it.
 */
export function podUsageEvent(key: PodUsageEventKey, extra: Partial<PodUsageEvent> = {}): PodUsageEvent {
  return {
    ...key,
    gpuTypeId: 'NVIDIA L4',
    gpuCount: 1,
    cpuFlavorId: null,
    cloudType: 'SECURE',
    interruptible: false,
    dataCenterId: 'EU-RO-1',
    costPerHr: '0.60',
    containerDiskInGb: 0,
    volumeInGb: 0,
    templateId: null,
    imageName: 'img:pod',
    ...extra,
  };
}
