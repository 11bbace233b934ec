import type { WorkloadStatus } from '../drivers/compute-driver';
import { observed } from './pod-reconciler';

const status = (phase: WorkloadStatus['phase']): WorkloadStatus => ({
  podId: 'w1',
  generation: 1,
  phase,
  startedAt: new Date('2026-11-24T10:00:00Z'),
  finishedAt: phase === 'RUNNING' || phase === 'CREATING' ? null : new Date('2026-11-24T10:05:00Z'),
  machineName: 'local',
  publicIp: null,
  portMappings: {},
  preempted: false,
  reason: phase === 'FAILED' ? 'Exit code 1' : null,
  serviceAddress: '127.0.0.1:41000',
  healthAddress: '127.0.0.1:41001',
});

describe('observed fields of a load-balancing worker', () => {
  it('records the addresses while the workload starts or runs', () => {
    expect(observed(status('RUNNING'), 'RUNNING')).toMatchObject({
      serviceAddress: '127.0.0.1:41000',
      healthAddress: '127.0.0.1:41001',
    });
    expect(observed(status('CREATING'), 'RUNNING').serviceAddress).toBe('127.0.0.1:41000');
  });

  it('clears them once the workload stopped, failed or is gone', () => {
    for (const phase of ['EXITED', 'FAILED'] as const)
      expect(observed(status(phase), 'RUNNING')).toMatchObject({ serviceAddress: null, healthAddress: null });
    expect(observed(null, 'RUNNING')).toMatchObject({ observedPhase: 'PENDING', serviceAddress: null });
  });
});
