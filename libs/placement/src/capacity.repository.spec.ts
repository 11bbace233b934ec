// The capacity tables against real Postgres: what a reservation takes from a machine, when it stops taking it, and
// that placements under the lock run one after the other.
import { createTestStores, pollUntil, type TestStores } from '@runplane/testing';
import { CapacityRepository } from './capacity.repository';

const NOW = new Date('2030-01-01T00:00:00Z');
const LATER = new Date('2030-01-01T00:01:00Z');

describe('CapacityRepository', () => {
  let stores: TestStores;
  let db: TestStores['db'];
  let capacity: CapacityRepository;

  beforeAll(async () => {
    stores = await createTestStores('placement-capacity');
    db = stores.db;
    capacity = new CapacityRepository(db);
    await db.machine.create({
      data: {
        id: 'm1',
        name: 'm1',
        gpuCount: 8,
        cpuCount: 64,
        memoryInGb: 512,
        dataCenterId: 'EU-RO-1',
        ready: true,
        labels: { 'runplane.io/cpu-flavors': 'cpu3c,cpu5c' },
      },
    });
  });

  afterAll(() => stores?.close());

  it('subtracts live reservations from the machine and drops them once they expire', async () => {
    const reservation = { podId: 'p1', machineId: 'm1', gpuCount: 2, vcpuCount: 16, memoryInGb: 64 };
    await capacity.locked((tx) => capacity.reserve(tx, reservation, LATER));
    expect(await capacity.freeNow(NOW)).toEqual([
      expect.objectContaining({
        id: 'm1',
        gpuFree: 6,
        cpuFree: 48,
        memoryFreeGb: 448,
        cpuFlavorIds: ['cpu3c', 'cpu5c'],
      }),
    ]);
    expect(await capacity.locked((tx) => capacity.findReservation(tx, 'p1', NOW))).toMatchObject(reservation);
    expect(await capacity.locked((tx) => capacity.location(tx, 'm1'))).toEqual({
      gpuTypeId: null,
      dataCenterId: 'EU-RO-1',
    });

    expect(await capacity.freeNow(LATER)).toEqual([expect.objectContaining({ id: 'm1', gpuFree: 8, cpuFree: 64 })]);
    expect(await db.capacityReservation.count()).toBe(0);
  });

  it('runs one locked placement at a time: the second waits for the first to commit', async () => {
    const order: string[] = [];
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = capacity.locked(async () => {
      order.push('first in');
      await held;
      order.push('first out');
    });
    await pollUntil(() => order.length === 1);
    const second = capacity.locked(async () => {
      order.push('second in');
    });
    // The second transaction is blocked on this database's advisory lock (Postgres says so), not merely slow.
    await pollUntil(async () => {
      const waiting = await db.$queryRaw<{ count: bigint }[]>`
        SELECT count(*) AS count FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
      return waiting[0]?.count === 1n;
    });
    expect(order).toEqual(['first in']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });
});
