import { ColdStarts, driverPhases, noteFromPass } from './cold-starts';

const t = (seconds: number): Date => new Date(Date.UTC(2026, 10, 24, 12, 0, seconds));

/** The repository's contract in memory: each phase kept once, the first time wins; every row was created at t(0). */
class Rows {
  readonly rows = new Map<string, Record<string, string>>();
  readonly queries: string[][] = [];
  readonly writes: string[][] = [];
  async recordMany(records: readonly { podId: string; phases: Readonly<Record<string, Date>> }[]): Promise<void> {
    this.writes.push(records.map((record) => record.podId));
    for (const { podId, phases } of records) {
      const added = Object.fromEntries(Object.entries(phases).map(([phase, at]) => [phase, at.toISOString()]));
      this.rows.set(podId, { ...added, ...this.rows.get(podId) });
    }
  }
  async readMany(ids: readonly string[]): Promise<Map<string, { phases: Record<string, string>; createdAt: Date }>> {
    this.queries.push([...ids]);
    return new Map(ids.map((id) => [id, { phases: this.rows.get(id) ?? {}, createdAt: t(0) }]));
  }
}

describe('ColdStarts', () => {
  it('keeps each phase once, in order, and observes the seconds since the phase before', async () => {
    const rows = new Rows();
    const observed: [string, number][] = [];
    const coldStarts = new ColdStarts(rows);
    coldStarts.observeIn({
      observe: (labels, value) => {
        observed.push([labels.phase, value]);
      },
    });
    await coldStarts.note('w1', { placed: t(0), scheduled: t(1) });
    // The first ping is seen before the container's start is: the start is dated no later than the ping.
    await coldStarts.note('w1', { firstPing: t(10) });
    await coldStarts.note('w1', { containerStarted: t(12), placed: t(5) });
    await coldStarts.note('w1', { firstJob: t(11) });
    expect(rows.rows.get('w1')).toEqual({
      placed: t(0).toISOString(),
      scheduled: t(1).toISOString(),
      firstPing: t(10).toISOString(),
      containerStarted: t(10).toISOString(),
      firstJob: t(11).toISOString(),
    });
    expect(observed).toEqual([
      ['scheduled', 1],
      ['firstPing', 9],
      ['containerStarted', 9],
      ['firstJob', 1],
    ]);
    expect(coldStarts.furthest(['w1', 'unknown'])).toBe('firstJob');
  });

  it('takes a first job heard of before any ping or pass as the first ping too, placed when its row was created', async () => {
    const rows = new Rows();
    const observed: [string, number][] = [];
    const coldStarts = new ColdStarts(rows);
    coldStarts.observeIn({
      observe: (labels, value) => {
        observed.push([labels.phase, value]);
      },
    });
    await coldStarts.note('w3', { firstJob: t(4) });
    expect(rows.rows.get('w3')).toEqual({
      placed: t(0).toISOString(),
      firstPing: t(4).toISOString(),
      firstJob: t(4).toISOString(),
    });
    expect(observed).toEqual([
      ['firstPing', 4],
      ['firstJob', 0],
    ]);
  });

  it('after a restart, reads what the row holds and counts nothing twice', async () => {
    const rows = new Rows();
    await new ColdStarts(rows).note('w2', { placed: t(0), containerStarted: t(3) });
    const observed: number[] = [];
    const restarted = new ColdStarts(rows);
    restarted.observeIn({
      observe: (_labels, value) => {
        observed.push(value);
      },
    });
    await restarted.note('w2', { placed: t(0), containerStarted: t(4), firstPing: t(6) });
    expect(observed).toEqual([3]);
    expect(rows.rows.get('w2')?.['containerStarted']).toBe(t(3).toISOString());
  });

  it('reads a pass’s new workers in one query, then notes what the pass saw of each', async () => {
    const rows = new Rows();
    const coldStarts = new ColdStarts(rows);
    const row = (id: string, started: Date | null) => ({
      id,
      createdAt: t(0),
      lastStartedAt: started,
      observedPhase: started ? 'RUNNING' : 'CREATING',
    });
    const seen = [
      { initializing: true, busy: false },
      { initializing: false, busy: true },
    ];
    await noteFromPass(coldStarts, [row('a', null), row('b', t(2))], seen, t(5));
    await noteFromPass(coldStarts, [row('a', t(6)), row('b', t(2))], seen, t(7));
    expect(rows.queries).toEqual([['a', 'b']]);
    // A worker gone from the pass's rows is forgotten: seen again, its row is read again.
    coldStarts.retain(['b']);
    await coldStarts.preload(['a', 'b']);
    expect(rows.queries).toEqual([['a', 'b'], ['a']]);
    expect(rows.rows.get('a')).toEqual({ placed: t(0).toISOString(), containerStarted: t(6).toISOString() });
    expect(Object.keys(rows.rows.get('b') ?? {}).sort()).toEqual([
      'containerStarted',
      'firstJob',
      'firstPing',
      'placed',
    ]);
  });

  it('does not take a row’s lastStartedAt for a container start until the workload was observed running', async () => {
    const rows = new Rows();
    const coldStarts = new ColdStarts(rows);
    // A worker row is created with lastStartedAt at its creation (the Pod API's rent time), before any pod exists.
    const created = { id: 'c', createdAt: t(0), lastStartedAt: t(0) };
    const seen = [{ initializing: true, busy: false }];
    await noteFromPass(coldStarts, [{ ...created, observedPhase: null }], seen, t(1));
    await noteFromPass(coldStarts, [{ ...created, observedPhase: 'CREATING' }], seen, t(2));
    expect(rows.rows.get('c')).toEqual({ placed: t(0).toISOString() });
    // So the pod's scheduling, seen later, is not dated back to that creation.
    await coldStarts.note('c', { scheduled: t(3) });
    await noteFromPass(coldStarts, [{ ...created, lastStartedAt: t(4), observedPhase: 'RUNNING' }], seen, t(5));
    expect(rows.rows.get('c')).toEqual({
      placed: t(0).toISOString(),
      scheduled: t(3).toISOString(),
      containerStarted: t(4).toISOString(),
    });
  });

  it('reads and writes the workers noted in one turn in one query each', async () => {
    const rows = new Rows();
    const coldStarts = new ColdStarts(rows);
    await Promise.all(['x', 'y', 'z'].map((id) => coldStarts.note(id, { scheduled: t(2) })));
    expect(rows.queries).toEqual([['x', 'y', 'z']]);
    // Each row's placement (its creation) and its scheduling, written together.
    expect(rows.writes.flat().sort()).toEqual(['x', 'x', 'y', 'y', 'z', 'z']);
    expect(rows.writes.length).toBeLessThanOrEqual(2);
    expect(rows.rows.get('y')).toEqual({ placed: t(0).toISOString(), scheduled: t(2).toISOString() });
  });

  it('keeps a driver’s pull reported after the container started, and dates a pull never reported at the start', async () => {
    const rows = new Rows();
    const coldStarts = new ColdStarts(rows);
    const status = (imagePulledAt: Date | null) => ({
      phase: 'RUNNING' as const,
      startedAt: t(4),
      coldStart: { scheduledAt: t(1), imagePulledAt },
    });
    // The Pulled Event is seen after the running pod: the pull is its time, between scheduling and the start.
    await coldStarts.note('late', driverPhases(status(null)));
    await coldStarts.note('late', driverPhases(status(t(3))));
    await coldStarts.note('late', { firstPing: t(6) });
    expect(rows.rows.get('late')?.['imagePulled']).toBe(t(3).toISOString());
    // No Pulled Event by the first ping: the pull is dated at the container's start.
    await coldStarts.note('none', driverPhases(status(null)));
    await coldStarts.note('none', { firstPing: t(6) });
    await coldStarts.note('none', driverPhases(status(t(2))));
    expect(rows.rows.get('none')?.['imagePulled']).toBe(t(4).toISOString());
    // A driver that reports no pulls (local) records none.
    await coldStarts.note('local', driverPhases({ phase: 'RUNNING', startedAt: t(4) }));
    await coldStarts.note('local', { firstPing: t(6) });
    expect(rows.rows.get('local')).not.toHaveProperty('imagePulled');
  });
});
