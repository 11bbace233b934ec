import { EndpointPool, type PoolWorkerRow } from './endpoint-pool';
import type { WorkerHealth } from './worker-health';

/** Rows and health answers the spec sets; the pool reads them as it would Postgres and the workers. */
class Fleet {
  rows: PoolWorkerRow[] = [];
  health = new Map<string, WorkerHealth>();
  probed: string[] = [];

  add(id: string, health: WorkerHealth, row: Partial<PoolWorkerRow> = {}): void {
    const address = `10.0.0.${this.rows.length + 1}:80`;
    this.rows.push({
      id,
      observedPhase: 'RUNNING',
      serviceAddress: address,
      healthAddress: address,
      healthCheckPath: null,
      statusMessage: null,
      draining: false,
      ...row,
    });
    this.health.set(address, health);
  }

  pool(): EndpointPool {
    return new EndpointPool('ep', { workers: async () => this.rows }, async (address, path) => {
      this.probed.push(`${address}${path}`);
      return this.health.get(address) ?? 'unanswered';
    });
  }
}

describe('EndpointPool', () => {
  it('gives requests only to ready workers, the one with the fewest in flight first', async () => {
    const fleet = new Fleet();
    fleet.add('a', 'ready');
    fleet.add('b', 'ready');
    fleet.add('c', 'initializing');
    const pool = fleet.pool();
    await pool.refresh();
    // Ties go to the worker read first.
    const taken = [pool.take(), pool.take(), pool.take()];
    expect(taken.map((worker) => worker?.id)).toEqual(['a', 'b', 'a']);
    expect(pool.inFlight()).toEqual({ a: 2, b: 1 });
    const [first] = taken;
    if (first) pool.release(first);
    if (first) pool.release(first);
    expect(pool.take()?.id).toBe('a');
    expect(pool.inFlight()).toEqual({ a: 1, b: 1 });
  });

  it('keeps a worker whose connection failed out until its health check answers 200 again', async () => {
    const fleet = new Fleet();
    fleet.add('a', 'ready');
    const pool = fleet.pool();
    await pool.refresh();
    const worker = pool.take();
    expect(worker?.id).toBe('a');
    if (!worker) return;
    pool.release(worker);
    pool.markDown(worker);
    expect(pool.take()).toBeNull();
    fleet.health.set('10.0.0.1:80', 'unanswered');
    await pool.refresh();
    expect(pool.take()).toBeNull();
    fleet.health.set('10.0.0.1:80', 'ready');
    await pool.refresh();
    expect(pool.take()?.id).toBe('a');
  });

  it('checks health only of running workers with an address, at their HEALTH_CHECK_PATH or /ping', async () => {
    const fleet = new Fleet();
    fleet.add('a', 'ready', { healthCheckPath: '/health' });
    fleet.add('b', 'ready');
    fleet.add('c', 'ready', { observedPhase: 'CREATING' });
    fleet.add('d', 'ready', { serviceAddress: null, healthAddress: null });
    const pool = fleet.pool();
    await pool.refresh();
    expect(fleet.probed.sort()).toEqual(['10.0.0.1:80/health', '10.0.0.2:80/ping']);
    expect(pool.snapshot().map((worker) => [worker.id, worker.health])).toEqual([
      ['a', 'ready'],
      ['b', 'ready'],
      ['c', 'unknown'],
      ['d', 'unknown'],
    ]);
  });

  it('wakes a waiting request when a worker becomes ready, and gives up after the wait', async () => {
    const fleet = new Fleet();
    const pool = fleet.pool();
    await pool.refresh();
    const never = new AbortController();
    expect(await pool.waitAndTake(10, never.signal)).toBeNull();

    const waiting = pool.waitAndTake(60_000, never.signal);
    fleet.add('late', 'ready');
    await pool.refresh();
    expect((await waiting)?.id).toBe('late');

    fleet.health.set('10.0.0.1:80', 'unhealthy');
    await pool.refresh();
    const leaving = new AbortController();
    const abandoned = pool.waitAndTake(60_000, leaving.signal);
    leaving.abort();
    expect(await abandoned).toBeNull();
  });

  it('gives a draining worker no new request, and says it drains while its requests in flight go on', async () => {
    const fleet = new Fleet();
    fleet.add('a', 'ready');
    fleet.add('b', 'ready');
    const pool = fleet.pool();
    await pool.refresh();
    const first = pool.take();
    expect(first?.id).toBe('a');
    expect(pool.draining()).toEqual([]);
    fleet.rows = fleet.rows.map((row) => (row.id === 'a' ? { ...row, draining: true } : row));
    fleet.probed = [];
    await pool.refresh();
    // Its health is not checked any more; the next requests go to the other worker, however busy.
    expect(fleet.probed).toEqual(['10.0.0.2:80/ping']);
    expect([pool.take()?.id, pool.take()?.id]).toEqual(['b', 'b']);
    expect(pool.draining()).toEqual(['a']);
    expect(pool.inFlight()).toEqual({ a: 1, b: 2 });
    pool.release(first as NonNullable<typeof first>);
    expect(pool.inFlight()).toEqual({ b: 2 });
  });

  it('forgets workers whose rows are gone', async () => {
    const fleet = new Fleet();
    fleet.add('a', 'ready');
    const pool = fleet.pool();
    await pool.refresh();
    fleet.rows = [];
    await pool.refresh();
    expect(pool.snapshot()).toEqual([]);
    expect(pool.take()).toBeNull();
  });
});
