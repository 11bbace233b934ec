import { buildPriorityClasses } from './priority-classes';

describe('buildPriorityClasses', () => {
  it('builds a low, never-preempting interruptible class and a higher on-demand class', () => {
    expect(buildPriorityClasses()).toEqual([
      {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: 'runplane-interruptible', labels: { 'app.kubernetes.io/managed-by': 'runplane' } },
        value: -100,
        preemptionPolicy: 'Never',
        globalDefault: false,
        description: expect.stringContaining('interruptible'),
      },
      {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: 'runplane-on-demand', labels: { 'app.kubernetes.io/managed-by': 'runplane' } },
        value: 1000,
        preemptionPolicy: 'PreemptLowerPriority',
        globalDefault: false,
        description: expect.stringContaining('on-demand'),
      },
    ]);
  });
});
