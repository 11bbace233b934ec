import { scalingSettings, scalingWorker } from './__fixtures__/scaling';
import {
  desiredWorkerCount,
  replacementBackoffMs,
  scalingPlan,
  type ScalingSettings,
  workersToRemove,
} from './autoscaler';

const settings = (extra: Partial<ScalingSettings> = {}) =>
  scalingSettings({ scalerType: 'QUEUE_DELAY', scalerValue: 4 }, extra);
const signals = (
  scalingQueued: number,
  oldestScalingWaitMs: number | null = 0,
  inProgress = 0,
  queued = scalingQueued,
) => ({
  scalingQueued,
  queued,
  inProgress,
  oldestScalingWaitMs,
});
const worker = scalingWorker;

describe('desiredWorkerCount: QUEUE_DELAY', () => {
  it('starts the first worker at once when jobs wait and none is up', () => {
    expect(desiredWorkerCount(settings(), signals(1, 0), [])).toBe(1);
  });

  it('adds one worker when the oldest job waited longer than scalerValue seconds', () => {
    expect(desiredWorkerCount(settings(), signals(3, 4_001), [worker('a', { busy: true })])).toBe(2);
    expect(desiredWorkerCount(settings(), signals(3, 4_000), [worker('a', { busy: true })])).toBe(1);
  });

  it('waits for a starting worker before adding another', () => {
    expect(
      desiredWorkerCount(settings(), signals(3, 9_000), [
        worker('a', { busy: true }),
        worker('b', { initializing: true }),
      ]),
    ).toBe(2);
  });

  it('never goes above workersMax nor below workersMin', () => {
    const busy = [1, 2, 3].map((n) => worker(`w${n}`, { busy: true }));
    expect(desiredWorkerCount(settings({ workersMax: 3 }), signals(10, 60_000), busy)).toBe(3);
    expect(desiredWorkerCount(settings({ workersMin: 2 }), signals(0, null), [])).toBe(2);
  });
});

describe('desiredWorkerCount: REQUEST_COUNT', () => {
  it('targets ceil((queued + inProgress) / scalerValue)', () => {
    expect(desiredWorkerCount(settings({ scalerType: 'REQUEST_COUNT', scalerValue: 2 }), signals(3, 0, 2), [])).toBe(3);
    expect(desiredWorkerCount(settings({ scalerType: 'REQUEST_COUNT', scalerValue: 10 }), signals(1), [])).toBe(1);
  });
});

describe('lowPriority jobs', () => {
  it('never scale up, with either scaler', () => {
    const onlyLow = signals(0, null, 0, 25);
    expect(desiredWorkerCount(settings(), onlyLow, [])).toBe(0);
    expect(desiredWorkerCount(settings({ scalerType: 'REQUEST_COUNT', scalerValue: 1 }), onlyLow, [])).toBe(0);
  });
});

describe('workersToRemove', () => {
  it('removes only workers idle for at least idleTimeout, longest idle first', () => {
    const workers = [
      worker('a', { idleForMs: 5_000 }),
      worker('b', { idleForMs: 4_999 }),
      worker('c', { idleForMs: 9_000 }),
    ];
    expect(workersToRemove(settings(), workers, 0)).toEqual(['c', 'a']);
  });

  it('never removes a busy or starting worker, however long ago it last finished a job', () => {
    const workers = [
      worker('busy', { busy: true, idleForMs: 60_000 }),
      worker('new', { initializing: true, idleForMs: 60_000 }),
    ];
    expect(workersToRemove(settings(), workers, 0)).toEqual([]);
  });

  it('keeps the desired count', () => {
    const workers = [worker('a', { idleForMs: 10_000 }), worker('b', { idleForMs: 10_000 })];
    expect(workersToRemove(settings({ workersMin: 1 }), workers, 1)).toEqual(['a']);
  });
});

describe('scalingPlan', () => {
  it('scales 0 -> 1 on a burst and back to 0 once idle', () => {
    expect(scalingPlan(settings(), signals(5, 100), [])).toEqual({ desired: 1, add: 1, remove: [] });
    expect(scalingPlan(settings(), signals(0, null), [worker('a', { idleForMs: 5_000 })])).toEqual({
      desired: 0,
      add: 0,
      remove: ['a'],
    });
  });
});

describe('replacementBackoffMs', () => {
  it('doubles per consecutive failure up to a minute', () => {
    expect([0, 1, 2, 3, 10].map(replacementBackoffMs)).toEqual([0, 1000, 2000, 4000, 60_000]);
  });
});
