import { type DbClient, withTransaction } from '@runplane/db';
import type { InventoryMachine } from './placement';

/** Key of the transaction-scoped advisory lock that serialises every placement (no double booking). */
const PLACEMENT_LOCK = 0x52504c43; // "RPLC"

/** A reservation as placement replies with it. */
export interface Reservation {
  podId: string;
  machineId: string;
  gpuCount: number;
  vcpuCount: number;
  memoryInGb: number;
}

/** Where a machine is, as a placement reply states it. */
export interface MachineLocation {
  gpuTypeId: string | null;
  dataCenterId: string | null;
}

/** The transaction a placement runs in, holding the placement lock: writes that book capacity go through it. */
export type PlacementTransaction = DbClient;

type CapacityField = 'gpuCount' | 'vcpuCount' | 'memoryInGb';

function cpuFlavorsOf(labels: unknown): string[] {
  const value =
    typeof labels === 'object' && labels !== null
      ? (labels as Record<string, unknown>)['runplane.io/cpu-flavors']
      : undefined;
  return typeof value === 'string' && value !== '' ? value.split(',') : [];
}

/**
 * Free capacity per machine: totals minus Pods that hold capacity and live reservations. Machines and reservations
 * belong to the whole deployment (no account key); every read that decides a placement runs inside {@link locked}.
 */
export class CapacityRepository {
  constructor(private readonly db: DbClient) {}

  /** Runs `work` in one transaction that holds the placement lock from its start to its end. */
  locked<T>(work: (tx: PlacementTransaction) => Promise<T>): Promise<T> {
    return withTransaction(this.db, async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${PLACEMENT_LOCK}::bigint)`;
      return work(tx);
    });
  }

  /** Free capacity as placement sees it now, read in a transaction of its own (without the lock). */
  freeNow(now: Date): Promise<InventoryMachine[]> {
    return withTransaction(this.db, (tx) => this.inventory(tx, now));
  }

  findReservation(tx: DbClient, podId: string, now: Date): Promise<Reservation | null> {
    return tx.capacityReservation.findFirst({ where: { podId, expiresAt: { gt: now } } });
  }

  /** The GPU type and data center of a machine; null when its row is gone. */
  location(tx: DbClient, machineId: string): Promise<MachineLocation | null> {
    return tx.machine.findUnique({ where: { id: machineId }, select: { gpuTypeId: true, dataCenterId: true } });
  }

  async reserve(tx: DbClient, reservation: Reservation, expiresAt: Date): Promise<void> {
    await tx.capacityReservation.upsert({
      where: { podId: reservation.podId },
      create: { ...reservation, expiresAt },
      update: { ...reservation, expiresAt },
    });
  }

  /** Drops expired reservations and those whose Pod row now exists (the row holds the capacity itself). */
  async prune(tx: DbClient, now: Date): Promise<void> {
    await tx.capacityReservation.deleteMany({ where: { expiresAt: { lte: now } } });
    const live = await tx.capacityReservation.findMany({ select: { podId: true } });
    if (live.length === 0) return;
    const written = await tx.pod.findMany({ where: { id: { in: live.map((r) => r.podId) } }, select: { id: true } });
    if (written.length > 0)
      await tx.capacityReservation.deleteMany({ where: { podId: { in: written.map((p) => p.id) } } });
  }

  /**
   * Every machine with what is still free. Pods hold their machine's capacity until they are terminated (a stopped
   * Pod keeps its GPUs so that starting it again never fails).
   */
  async inventory(tx: DbClient, now: Date): Promise<InventoryMachine[]> {
    await this.prune(tx, now);
    const [machines, used, reserved] = await Promise.all([
      tx.machine.findMany({ orderBy: { id: 'asc' } }),
      tx.pod.groupBy({
        by: ['machineId'],
        where: { machineId: { not: null }, desiredStatus: { not: 'TERMINATED' } },
        _sum: { gpuCount: true, vcpuCount: true, memoryInGb: true },
      }),
      tx.capacityReservation.groupBy({
        by: ['machineId'],
        _sum: { gpuCount: true, vcpuCount: true, memoryInGb: true },
      }),
    ]);
    const taken = (machineId: string, field: CapacityField): number =>
      (used.find((u) => u.machineId === machineId)?._sum[field] ?? 0) +
      (reserved.find((r) => r.machineId === machineId)?._sum[field] ?? 0);
    return machines.map((machine) => ({
      id: machine.id,
      gpuTypeId: machine.gpuTypeId,
      dataCenterId: machine.dataCenterId,
      gpuCount: machine.gpuCount,
      gpuFree: machine.gpuCount - taken(machine.id, 'gpuCount'),
      secureCloud: machine.secureCloud,
      cpuFree: machine.cpuCount - taken(machine.id, 'vcpuCount'),
      memoryFreeGb: machine.memoryInGb - taken(machine.id, 'memoryInGb'),
      cpuFlavorIds: cpuFlavorsOf(machine.labels),
      ready: machine.ready && machine.schedulable,
    }));
  }
}
