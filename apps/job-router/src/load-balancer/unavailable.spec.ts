import type { PoolWorkerRow, UpstreamWorker } from './endpoint-pool';
import { explainUnavailable } from './unavailable';

function worker(health: UpstreamWorker['health'], row: Partial<PoolWorkerRow> = {}): UpstreamWorker {
  const base: PoolWorkerRow = {
    id: 'w',
    observedPhase: 'RUNNING',
    serviceAddress: '10.0.0.1:80',
    healthAddress: '10.0.0.1:80',
    healthCheckPath: null,
    statusMessage: null,
    draining: false,
  };
  return { id: 'w', row: { ...base, ...row }, health, down: false, inFlight: 0 };
}

describe('explainUnavailable', () => {
  it('says no worker runs yet when there is none', () => {
    expect(explainUnavailable([], [], 60_000)).toEqual({
      reason: 'NO_WORKERS',
      message: 'No worker of this endpoint is running yet (waited 60 s for one)',
    });
  });

  it('leaves draining workers out: the endpoint has none while its last one drains', () => {
    const draining = worker('ready', { draining: true });
    expect(explainUnavailable([draining], [], 5_000).reason).toBe('NO_WORKERS');
    expect(explainUnavailable([draining, worker('initializing')], [], 5_000).reason).toBe('WORKERS_STARTING');
  });

  it('counts workers initializing and not answering as starting', () => {
    const workers = [worker('initializing'), worker('unanswered'), worker('unknown', { observedPhase: 'CREATING' })];
    expect(explainUnavailable(workers, [], 1_000)).toEqual({
      reason: 'WORKERS_STARTING',
      message: 'Workers of this endpoint are starting: 1 initializing (health check answers 204), 2 not answering yet',
    });
  });

  it('names workers whose health check answers something else', () => {
    expect(explainUnavailable([worker('unhealthy'), worker('initializing')], [], 1_000).reason).toBe(
      'WORKERS_UNHEALTHY',
    );
  });

  it("gives the scheduler's placement refusal or the cluster's as no capacity", () => {
    const refusal = explainUnavailable([], [{ workerId: 'throttled-1', state: 'throttled', reason: 'No GPU free' }], 0);
    expect(refusal).toEqual({
      reason: 'NO_CAPACITY',
      message: 'No capacity for a worker of this endpoint: No GPU free',
    });
    const unschedulable = worker('unknown', { observedPhase: 'CREATING', statusMessage: 'Unschedulable: 0/3 nodes' });
    expect(explainUnavailable([unschedulable], [], 0).message).toContain('Unschedulable: 0/3 nodes');
  });

  it('prefers a crash loop, with its exit reason, to everything else', () => {
    const backoff = 'Waiting to replace a crashed worker (3 in a row): exit code 137';
    const states = [
      { workerId: 'throttled-1', state: 'throttled' as const, reason: backoff },
      { workerId: 'throttled-2', state: 'throttled' as const, reason: 'No GPU free' },
    ];
    expect(explainUnavailable([worker('initializing')], states, 0)).toEqual({
      reason: 'CRASH_LOOP',
      message: `Workers of this endpoint keep crashing: ${backoff}`,
    });
    const failed = worker('unknown', { observedPhase: 'FAILED', statusMessage: 'exit code 1: ImportError' });
    expect(explainUnavailable([failed], [], 0).message).toBe(
      'Workers of this endpoint keep crashing: exit code 1: ImportError',
    );
  });
});
