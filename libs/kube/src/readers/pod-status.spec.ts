import type { V1Pod } from '@kubernetes/client-node';
import { readPodStatus } from './pod-status';

const started = '2026-11-21T08:00:00Z';

function pod(status: V1Pod['status'], extra: Partial<V1Pod> = {}): V1Pod {
  return { metadata: { name: 'rp-p1' }, spec: { containers: [], nodeName: 'gpu-node-1' }, status, ...extra };
}

describe('readPodStatus', () => {
  it('reads a running pod: phase, node, container start time, restarts', () => {
    const status = readPodStatus(
      pod({
        phase: 'Running',
        startTime: new Date('2026-11-21T07:59:00Z'),
        containerStatuses: [
          {
            name: 'workload',
            image: 'i',
            imageID: '',
            ready: true,
            restartCount: 2,
            state: { running: { startedAt: new Date(started) } },
            lastState: { terminated: { exitCode: 137 } },
          },
        ],
      }),
    );
    expect(status).toEqual({
      phase: 'RUNNING',
      nodeName: 'gpu-node-1',
      startedAt: new Date(started),
      preempted: false,
      unschedulable: null,
      restartCount: 2,
      waitingReason: null,
      exitCode: 137,
      message: null,
    });
  });

  it('accepts the ISO strings raw watch events carry and falls back to the pod start time', () => {
    const raw = { phase: 'Running', startTime: started } as unknown as V1Pod['status'];
    expect(readPodStatus(pod(raw)).startedAt).toEqual(new Date(started));
  });

  it('reports an unschedulable pending pod with the scheduler reason', () => {
    const status = readPodStatus(
      pod(
        {
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: '0/4 nodes are available: 4 Insufficient nvidia.com/gpu.',
            },
          ],
        },
        { spec: { containers: [] } },
      ),
    );
    expect(status.phase).toBe('CREATING');
    expect(status.nodeName).toBeNull();
    expect(status.startedAt).toBeNull();
    expect(status.unschedulable).toEqual({
      reason: 'Unschedulable',
      message: '0/4 nodes are available: 4 Insufficient nvidia.com/gpu.',
    });
    expect(status.message).toBe('0/4 nodes are available: 4 Insufficient nvidia.com/gpu.');
  });

  it('reports an image pull failure while creating', () => {
    const status = readPodStatus(
      pod({
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'workload',
            image: 'i',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { waiting: { reason: 'ErrImagePull', message: 'pull access denied' } },
          },
        ],
      }),
    );
    expect(status).toMatchObject({
      phase: 'CREATING',
      waitingReason: 'ErrImagePull',
      message: 'pull access denied',
      exitCode: null,
    });
  });

  it('detects preemption by the scheduler from the DisruptionTarget condition', () => {
    const status = readPodStatus(
      pod(
        {
          phase: 'Running',
          conditions: [
            {
              type: 'DisruptionTarget',
              status: 'True',
              reason: 'PreemptionByScheduler',
              message: 'Preempted by pod abc on node gpu-node-1',
            },
          ],
        },
        { metadata: { name: 'rp-p1', deletionTimestamp: new Date(started) } },
      ),
    );
    expect(status).toMatchObject({
      phase: 'STOPPING',
      preempted: true,
      message: 'Preempted by pod abc on node gpu-node-1',
    });
  });

  it('does not call other disruptions preemption', () => {
    const status = readPodStatus(
      pod({
        phase: 'Running',
        conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }],
      }),
    );
    expect(status.preempted).toBe(false);
  });

  it.each([
    ['Succeeded', 'EXITED'],
    ['Failed', 'FAILED'],
    ['Unknown', 'UNKNOWN'],
    ['Pending', 'CREATING'],
    [undefined, 'CREATING'],
  ])('maps phase %s to %s', (phase, expected) => {
    expect(readPodStatus(pod(phase ? { phase } : undefined)).phase).toBe(expected);
  });

  it('keeps a finished phase even while the pod object is being deleted, and reads the exit code', () => {
    const status = readPodStatus(
      pod(
        {
          phase: 'Failed',
          message: 'Pod was terminated',
          containerStatuses: [
            {
              name: 'workload',
              image: 'i',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 1, reason: 'Error' } },
            },
          ],
        },
        { metadata: { deletionTimestamp: new Date(started) } },
      ),
    );
    expect(status).toMatchObject({ phase: 'FAILED', exitCode: 1, message: 'Pod was terminated' });
  });
});
