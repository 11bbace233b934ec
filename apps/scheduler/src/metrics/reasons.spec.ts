import { decisionInput, decisionReason } from './decision-reasons';
import { PLACEMENT_FAILURE_REASONS, placementFailureReason } from './placement-reasons';

describe('autoscaler decision reasons', () => {
  const queue = { type: 'QUEUE' as string, scalerType: 'QUEUE_DELAY' as const, workersMin: 0 };

  it('names the first worker of an empty endpoint a scale from zero, later ones by the scaler', () => {
    expect(decisionReason(decisionInput(queue, 0, { added: 1, removed: 0 }))).toEqual({
      direction: 'up',
      reason: 'scale_from_zero',
    });
    expect(decisionReason(decisionInput(queue, 2, { added: 1, removed: 0 }))?.reason).toBe('queue_delay');
    const counted = { ...queue, scalerType: 'REQUEST_COUNT' as const };
    expect(decisionReason(decisionInput(counted, 1, { added: 3, removed: 0 }))?.reason).toBe('request_count');
    const balanced = { ...queue, type: 'LOAD_BALANCER' };
    expect(decisionReason(decisionInput(balanced, 1, { added: 1, removed: 0 }))).toEqual({
      direction: 'up',
      reason: 'request_load',
    });
  });

  it('says workers_min when the workers added only reach the minimum', () => {
    expect(decisionReason(decisionInput({ ...queue, workersMin: 2 }, 0, { added: 2, removed: 0 }))?.reason).toBe(
      'workers_min',
    );
  });

  it('counts removals as idle timeouts and nothing done as no decision', () => {
    expect(decisionReason(decisionInput(queue, 3, { added: 0, removed: 2 }))).toEqual({
      direction: 'down',
      reason: 'idle_timeout',
    });
    expect(decisionReason(decisionInput(queue, 3, { added: 0, removed: 0 }))).toBeNull();
  });
});

describe('placement failure reasons', () => {
  it('takes the candidate that came closest, from a bounded set', () => {
    expect(
      placementFailureReason([
        { kind: 'not-in-inventory', candidate: 'NVIDIA H100' },
        { kind: 'insufficient-gpus', candidate: 'NVIDIA A40', requested: 2, mostFree: 1 },
      ]),
    ).toBe('no_capacity');
    expect(placementFailureReason([{ kind: 'data-center', candidate: 'NVIDIA A40', allowed: ['EU-RO-1'] }])).toBe(
      'data_center',
    );
    expect(placementFailureReason([{ kind: 'not-in-inventory', candidate: 'NVIDIA B200' }])).toBe('no_gpu_type');
    expect(placementFailureReason([])).toBe('unknown');
    expect(PLACEMENT_FAILURE_REASONS).toEqual([
      'no_capacity',
      'no_cpu_capacity',
      'cloud_type',
      'data_center',
      'no_gpu_type',
      'unknown',
    ]);
  });
});
