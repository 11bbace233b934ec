import { scalingSettings, scalingWorker } from './__fixtures__/scaling';
import { requestScalingPlan, type ScalingSettings } from './autoscaler';

const settings = (extra: Partial<ScalingSettings> = {}) =>
  scalingSettings({ scalerType: 'REQUEST_COUNT', scalerValue: 2 }, extra);
const traffic = (waiting: number, inFlight = 0, requestsPerSecond = 0) => ({ waiting, inFlight, requestsPerSecond });
const worker = scalingWorker;

describe('requestScalingPlan (load-balancing endpoints)', () => {
  it('scales from zero for one waiting request', () => {
    expect(requestScalingPlan(settings(), traffic(1), [])).toMatchObject({ desired: 1, add: 1, remove: [] });
  });

  it('wants ceil((waiting + in flight) / scalerValue) workers, within workersMin..workersMax', () => {
    expect(requestScalingPlan(settings(), traffic(3, 4), [worker('a')])).toMatchObject({ desired: 4, add: 3 });
    expect(requestScalingPlan(settings(), traffic(30, 4), [])).toMatchObject({ desired: 5, add: 5 });
    expect(requestScalingPlan(settings({ workersMin: 2 }), traffic(0), [])).toMatchObject({ desired: 2, add: 2 });
  });

  it('keeps workers for a steady request rate whose in-flight count is momentarily low', () => {
    expect(requestScalingPlan(settings(), traffic(0, 0, 5.5), [worker('a')])).toMatchObject({ desired: 3, add: 2 });
  });

  it('reads scalerValue as requests per worker whatever the scalerType', () => {
    const plan = requestScalingPlan(settings({ scalerType: 'QUEUE_DELAY', scalerValue: 4 }), traffic(5), []);
    expect(plan.desired).toBe(2);
  });

  it('removes only workers with no request in flight, idle for idleTimeout, down to what is wanted', () => {
    const workers = [
      worker('busy', { busy: true, idleForMs: 0 }),
      worker('idle-long', { idleForMs: 9_000 }),
      worker('idle-short', { idleForMs: 1_000 }),
      worker('starting', { initializing: true, idleForMs: 60_000 }),
    ];
    expect(requestScalingPlan(settings(), traffic(0, 1), workers)).toMatchObject({ desired: 1, remove: ['idle-long'] });
    const drained = [worker('a', { idleForMs: 6_000 }), worker('b', { idleForMs: 7_000 })];
    expect(requestScalingPlan(settings(), traffic(0), drained).remove).toEqual(['b', 'a']);
  });

  it('says why, with the signals and the bounds', () => {
    expect(requestScalingPlan(settings(), traffic(3, 1, 2.25), [worker('a')]).reason).toBe(
      '3 waiting + 1 in flight, 2.3 req/s at 2 per worker: 2 wanted, 2 within 0..5, 1 running',
    );
  });
});
