import type { ScalingSettings, ScalingWorker } from '@runplane/placement';
import { queueAddReason, queueRemoveReason, scalingLine } from './scaling-log';

const settings: ScalingSettings = {
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  workersMin: 0,
  workersMax: 3,
  idleTimeout: 5,
};
const worker = (id: string): ScalingWorker => ({ id, initializing: false, busy: true, idleForMs: 0 });
const signals = { scalingQueued: 2, queued: 2, inProgress: 1, oldestScalingWaitMs: 4_230 };

describe('scaling decisions in words', () => {
  it('says why workers are added', () => {
    expect(queueAddReason(settings, signals, [worker('a')])).toBe('queue delay 4.2 s > 4 s');
    expect(queueAddReason(settings, signals, [])).toBe('2 job(s) queued and no worker');
    expect(queueAddReason({ ...settings, workersMin: 2 }, signals, [worker('a')])).toBe('1 worker(s) < workersMin 2');
    expect(queueAddReason({ ...settings, scalerType: 'REQUEST_COUNT', scalerValue: 1 }, signals, [worker('a')])).toBe(
      '2 queued + 1 in progress > 1 per worker × 1',
    );
  });

  it('says why workers are removed', () => {
    expect(queueRemoveReason(settings, [worker('a')], 0)).toBe('idle for ≥ 5 s with 0 worker(s) wanted');
    expect(queueRemoveReason({ ...settings, workersMax: 0 }, [worker('a')], 0)).toBe('1 worker(s) > workersMax 0');
  });

  it('gives the endpoint and its worker counts before and after', () => {
    expect(scalingLine('ep1', { before: 1, after: 2, reason: 'queue delay 4.2 s > 4 s' })).toBe(
      'Endpoint ep1: adding 1 worker(s), 1 → 2: queue delay 4.2 s > 4 s',
    );
    expect(scalingLine('ep1', { before: 2, after: 0, reason: 'idle' })).toBe(
      'Endpoint ep1: removing 2 worker(s), 2 → 0: idle',
    );
  });
});
