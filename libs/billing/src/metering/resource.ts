import type { UsageEvent } from '@runplane/contracts';

/** What a usage interval is about: a Pod, a serverless worker, a network volume or a caller's public-endpoint job. */
export type ResourceKind = 'POD' | 'WORKER' | 'NETWORK_VOLUME' | 'PUBLIC_JOB';

/** One billable resource of an account. */
export interface ResourceRef {
  kind: ResourceKind;
  id: string;
}

/** The resource a usage event is about. */
export function resourceOf(event: UsageEvent): ResourceRef {
  if ('podId' in event) return { kind: 'POD', id: event.podId };
  if ('workerId' in event) return { kind: 'WORKER', id: event.workerId };
  if ('jobId' in event) return { kind: 'PUBLIC_JOB', id: event.jobId };
  return { kind: 'NETWORK_VOLUME', id: event.networkVolumeId };
}

/** A stable text key of a resource (for locks and maps). */
export function resourceKey(resource: ResourceRef): string {
  return `${resource.kind}:${resource.id}`;
}
