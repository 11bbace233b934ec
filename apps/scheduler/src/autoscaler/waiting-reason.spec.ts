import type { ScalingWorker } from '@runplane/placement';
import { type WaitingInputs, waitingReason } from './waiting-reason';

const at = new Date('2026-11-24T12:00:00Z');
const worker = (id: string, state: Partial<ScalingWorker> = {}): ScalingWorker => ({
  id,
  initializing: false,
  busy: true,
  idleForMs: 0,
  ...state,
});
const inputs = (overrides: Partial<WaitingInputs> = {}): WaitingInputs => ({
  endpoint: { computeType: 'GPU', gpuTypeIds: ['NVIDIA A40'], workersMax: 2 },
  queued: 1,
  scalingQueued: 1,
  workers: [],
  added: 0,
  startingPhase: null,
  noCapacity: null,
  crash: null,
  at,
  ...overrides,
});

describe('waitingReason', () => {
  it('is null when no job is queued', () => {
    expect(waitingReason(inputs({ queued: 0, scalingQueued: 0 }))).toBeNull();
  });

  it('names each cause with its details', () => {
    expect(waitingReason(inputs())).toEqual({
      code: 'NO_WORKER',
      message: 'No worker yet: one is added on the next pass',
      at: at.toISOString(),
    });
    expect(waitingReason(inputs({ added: 1 }))).toMatchObject({ code: 'WORKERS_STARTING', phase: 'placed' });
    expect(
      waitingReason(inputs({ workers: [worker('w1', { initializing: true })], startingPhase: 'imagePulled' })),
    ).toMatchObject({
      code: 'WORKERS_STARTING',
      phase: 'imagePulled',
      message: '1 worker(s) starting: image pulled, starting the container',
    });
    expect(waitingReason(inputs({ noCapacity: 'There are no instances currently available' }))).toEqual({
      code: 'NO_CAPACITY',
      message: 'No capacity for NVIDIA A40: There are no instances currently available',
      gpuTypeIds: ['NVIDIA A40'],
      at: at.toISOString(),
    });
    expect(waitingReason(inputs({ workers: [worker('w1'), worker('w2')] }))).toMatchObject({
      code: 'MAX_WORKERS',
      workersMax: 2,
    });
    expect(waitingReason(inputs({ crash: { count: 3, reason: 'Exit code 3' } }))).toMatchObject({
      code: 'CRASH_LOOP',
      exitReason: 'Exit code 3',
      message: 'Workers are crash-looping (3 in a row): Exit code 3',
    });
    expect(waitingReason(inputs({ scalingQueued: 0 }))).toMatchObject({ code: 'LOW_PRIORITY' });
    expect(waitingReason(inputs({ workers: [worker('w1')] }))).toMatchObject({ code: 'WORKERS_BUSY' });
  });

  it('puts a crash loop before capacity, and capacity before starting workers', () => {
    const all = { crash: { count: 1, reason: 'OOMKilled' }, noCapacity: 'none', added: 1 };
    expect(waitingReason(inputs(all))?.code).toBe('CRASH_LOOP');
    expect(waitingReason(inputs({ ...all, crash: null }))?.code).toBe('NO_CAPACITY');
  });
});
