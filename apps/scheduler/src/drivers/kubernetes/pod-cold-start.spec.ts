import type { V1Pod } from '@runplane/kube';
import { podColdStart } from './pod-cold-start';

describe('podColdStart', () => {
  it('reads scheduling from the PodScheduled condition and the pull from the container’s start', () => {
    const pod: V1Pod = {
      status: {
        conditions: [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: new Date('2026-11-24T12:00:01Z') },
          { type: 'Ready', status: 'True', lastTransitionTime: new Date('2026-11-24T12:00:09Z') },
        ],
        containerStatuses: [
          {
            name: 'main',
            image: 'worker:1',
            imageID: 'sha256:abc',
            ready: true,
            restartCount: 0,
            state: { running: { startedAt: new Date('2026-11-24T12:00:07Z') } },
          },
        ],
      },
    };
    expect(podColdStart(pod)).toEqual({
      scheduledAt: new Date('2026-11-24T12:00:01Z'),
      imagePulledAt: new Date('2026-11-24T12:00:07Z'),
    });
  });

  it('has neither phase for a pod not scheduled yet, nor a pull while the image is still pulling', () => {
    expect(podColdStart({ status: { conditions: [{ type: 'PodScheduled', status: 'False' }] } })).toEqual({
      scheduledAt: null,
      imagePulledAt: null,
    });
    const pulling: V1Pod = {
      status: {
        containerStatuses: [
          { name: 'main', image: 'worker:1', imageID: '', ready: false, restartCount: 0, state: { waiting: {} } },
        ],
      },
    };
    expect(podColdStart(pulling).imagePulledAt).toBeNull();
  });
});
