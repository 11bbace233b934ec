import type { V1Pod } from '@runplane/kube';
import { podColdStart } from './pod-cold-start';

describe('podColdStart', () => {
  const running: V1Pod = {
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

  it('reads scheduling from the PodScheduled condition and the pull from the pod’s Pulled Event', () => {
    expect(podColdStart(running, new Date('2026-11-24T12:00:05Z'))).toEqual({
      scheduledAt: new Date('2026-11-24T12:00:01Z'),
      imagePulledAt: new Date('2026-11-24T12:00:05Z'),
    });
  });

  it('has no pull without a Pulled Event, even once the container runs, and no scheduling before the pod is placed', () => {
    expect(podColdStart(running, null).imagePulledAt).toBeNull();
    expect(podColdStart({ status: { conditions: [{ type: 'PodScheduled', status: 'False' }] } }, null)).toEqual({
      scheduledAt: null,
      imagePulledAt: null,
    });
  });
});
