import { ApiException, type V1Lease } from '@kubernetes/client-node';
import { LeaderElector, type LeaseApi, type LeaderElectorOptions } from './leader-election';

/** In-memory Lease store with the apiserver's rules: 404 when missing, 409 on a stale resourceVersion or a duplicate. */
class FakeLeases implements LeaseApi {
  lease: V1Lease | undefined;
  private version = 0;
  failNext: Error | undefined;

  private check(): void {
    const failure = this.failNext;
    this.failNext = undefined;
    if (failure) throw failure;
  }

  private stored(body: V1Lease): V1Lease {
    this.version += 1;
    this.lease = JSON.parse(
      JSON.stringify({ ...body, metadata: { ...body.metadata, resourceVersion: String(this.version) } }),
    );
    return JSON.parse(JSON.stringify(this.lease));
  }

  readNamespacedLease: LeaseApi['readNamespacedLease'] = async () => {
    this.check();
    if (!this.lease) throw new ApiException(404, 'not found', {}, {});
    return JSON.parse(JSON.stringify(this.lease));
  };

  createNamespacedLease: LeaseApi['createNamespacedLease'] = async ({ body }) => {
    this.check();
    if (this.lease) throw new ApiException(409, 'already exists', {}, {});
    return this.stored(body);
  };

  replaceNamespacedLease: LeaseApi['replaceNamespacedLease'] = async ({ body }) => {
    this.check();
    if (!this.lease) throw new ApiException(404, 'not found', {}, {});
    if (body.metadata?.resourceVersion !== this.lease.metadata?.resourceVersion)
      throw new ApiException(409, 'conflict', {}, {});
    return this.stored(body);
  };
}

class Clock {
  constructor(public time = Date.UTC(2030, 0, 1)) {}
  now(): number {
    return this.time;
  }
}

/** What the electors of one test share: the Lease store, the clock, and the log of leadership changes. */
interface Election {
  leases: FakeLeases;
  clock: Clock;
  events: string[];
}

function elector(
  { leases, clock, events }: Election,
  identity: string,
  extra: Partial<LeaderElectorOptions> = {},
): LeaderElector {
  return new LeaderElector({
    coordination: leases,
    name: 'scheduler',
    namespace: 'runplane',
    identity,
    leaseDurationMs: 15_000,
    renewMs: 2_000,
    retryMs: 2_000,
    renewDeadlineMs: 10_000,
    onStartedLeading: () => events.push(`${identity}:start`),
    onStoppedLeading: () => events.push(`${identity}:stop`),
    clock,
    ...extra,
  });
}

describe('LeaderElector', () => {
  let leases: FakeLeases;
  let clock: Clock;
  let events: string[];
  let a: LeaderElector;
  let b: LeaderElector;

  beforeEach(() => {
    leases = new FakeLeases();
    clock = new Clock();
    events = [];
    a = elector({ leases, clock, events }, 'a');
    b = elector({ leases, clock, events }, 'b');
  });

  it('creates the lease, leads, and writes holder, duration, times and transitions', async () => {
    expect(await a.tick()).toBe(true);
    expect(a.isLeader()).toBe(true);
    expect(events).toEqual(['a:start']);
    expect(leases.lease?.spec).toEqual({
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      acquireTime: '2030-01-01T00:00:00.000000Z',
      renewTime: '2030-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
  });

  it('keeps a second candidate out while the leader renews, and renewals keep acquireTime', async () => {
    await a.tick();
    for (let i = 0; i < 10; i++) {
      clock.time += 2_000;
      expect(await b.tick()).toBe(false);
      expect(await a.tick()).toBe(true);
    }
    expect(leases.lease?.spec?.acquireTime).toBe('2030-01-01T00:00:00.000000Z');
    expect(leases.lease?.spec?.renewTime).toBe('2030-01-01T00:00:20.000000Z');
    expect(events).toEqual(['a:start']);
  });

  it('takes over an expired lease, judged by when the candidate last saw it change', async () => {
    await a.tick();
    clock.time += 60_000; // the candidate has never seen the record: it must still wait a full duration
    expect(await b.tick()).toBe(false);
    clock.time += 14_999;
    expect(await b.tick()).toBe(false);
    clock.time += 1;
    expect(await b.tick()).toBe(true);
    expect(leases.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    // The old leader finds it lost the lease and, past its renew deadline, stops leading.
    expect(await a.tick()).toBe(false);
    expect(events).toEqual(['a:start', 'b:start', 'a:stop']);
  });

  it('lets only one of two racing candidates win (optimistic concurrency)', async () => {
    await a.tick();
    const c = elector({ leases, clock, events }, 'c');
    await b.tick();
    await c.tick();
    clock.time += 15_000;
    // Both read the same resourceVersion before either writes.
    const results = await Promise.all([b.tick(), c.tick()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(['b', 'c']).toContain(leases.lease?.spec?.holderIdentity);
  });

  it('a leader that cannot renew steps down at its renew deadline, before the lease expires', async () => {
    await a.tick();
    for (const step of [2_000, 4_000, 6_000, 8_000]) {
      clock.time = Date.UTC(2030, 0, 1) + step;
      leases.failNext = new Error('apiserver unreachable');
      expect(await a.tick()).toBe(true);
    }
    clock.time = Date.UTC(2030, 0, 1) + 10_000;
    leases.failNext = new Error('apiserver unreachable');
    expect(await a.tick()).toBe(false);
    expect(events).toEqual(['a:start', 'a:stop']);
  });

  it('stop() releases the lease so a candidate takes over on its next try', async () => {
    await a.tick();
    await b.tick();
    await a.stop();
    expect(leases.lease?.spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    clock.time += 2_000;
    expect(await b.tick()).toBe(true);
    expect(leases.lease?.spec?.leaseTransitions).toBe(1);
    expect(events).toEqual(['a:start', 'a:stop', 'b:start']);
  });

  it('reports API errors and keeps trying', async () => {
    const errors: unknown[] = [];
    const c = elector({ leases, clock, events }, 'c', { onError: (error) => errors.push(error) });
    leases.failNext = new Error('connection refused');
    expect(await c.tick()).toBe(false);
    expect(errors).toHaveLength(1);
    expect(await c.tick()).toBe(true);
  });

  it('survives a throwing leadership callback and reports it', async () => {
    const errors: unknown[] = [];
    const c = elector({ leases, clock, events }, 'c', {
      onStartedLeading: () => {
        throw new Error('callback bug');
      },
      onError: (error) => errors.push(error),
    });
    expect(await c.tick()).toBe(true);
    expect(c.isLeader()).toBe(true);
    expect(errors).toEqual([new Error('callback bug')]);
  });

  it('rejects timings that could let two leaders overlap', () => {
    const base = {
      coordination: leases,
      name: 'n',
      namespace: 'ns',
      identity: 'i',
      onStartedLeading: () => undefined,
      onStoppedLeading: () => undefined,
    };
    expect(
      () =>
        new LeaderElector({
          ...base,
          leaseDurationMs: 15_000,
          renewMs: 2_000,
          retryMs: 2_000,
          renewDeadlineMs: 15_000,
        }),
    ).toThrow(RangeError);
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 15_000, renewMs: 12_000, retryMs: 2_000 })).toThrow(
      RangeError,
    );
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 15_000, renewMs: 0, retryMs: 2_000 })).toThrow(
      RangeError,
    );
  });
});
