import type { V1Pod } from '@runplane/kube';
import { WorkloadStatuses } from './workload-statuses';

const podWithUid = (uid: string): V1Pod => ({ metadata: { name: 'rp-pod-w1', uid } });

describe('WorkloadStatuses deletions', () => {
  it('knows a pod whose deletion was sent until the informer shows it gone, and not a later pod of the workload', () => {
    const statuses = new WorkloadStatuses('runplane-workloads', () => null);
    const first = podWithUid('uid-1');
    expect(statuses.deletionSent('w1', first)).toBe(false);

    statuses.sentDeletion('w1', first);
    expect(statuses.deletionSent('w1', first)).toBe(true);
    // The workload's next pod (same name, new uid) is a pod of its own: its deletion is sent again.
    expect(statuses.deletionSent('w1', podWithUid('uid-2'))).toBe(false);
    expect(statuses.deletionSent('w2', first)).toBe(false);

    statuses.observed('w1', undefined);
    expect(statuses.deletionSent('w1', first)).toBe(false);
  });

  it('keeps nothing for a pod without a uid', () => {
    const statuses = new WorkloadStatuses('runplane-workloads', () => null);
    const pod: V1Pod = { metadata: { name: 'rp-pod-w1' } };
    statuses.sentDeletion('w1', pod);
    expect(statuses.deletionSent('w1', pod)).toBe(false);
  });
});
