import type { PlacementRpcReply, PlacementRpcRequest } from '@runplane/contracts';
import {
  type BatchPlacement,
  type CapacityRepository,
  type InventoryMachine,
  noCapacityMessage,
  placeMany,
  placePod,
  type PlacementResult,
  type PlacementTransaction,
} from '@runplane/placement';

/** How long a reservation waits for its Pod row (the gateway writes it right after the reply). */
const RESERVATION_TTL_MS = 60_000;

type Placed = Extract<PlacementResult, { placed: true }>;
type PlacementResultReasons = BatchPlacement['reasons'];

/**
 * Placement with reservation. Every placement runs under one Postgres advisory lock, so two concurrent creates never
 * book the same GPUs; a repeated request for the same Pod id returns its existing reservation (the Redis transport
 * may deliver one request to several scheduler replicas).
 */
export class PlacementService {
  constructor(
    private readonly capacity: CapacityRepository,
    private readonly clock: () => Date = () => new Date(),
    /** Told about each refused placement (metrics). */
    private readonly refused: (kind: 'pod' | 'worker', reasons: PlacementResultReasons) => void = () => undefined,
  ) {}

  /** For the gateway: reserves capacity for a Pod that does not exist yet. */
  reserve(request: PlacementRpcRequest): Promise<PlacementRpcReply> {
    return this.capacity.locked(async (tx) => {
      const now = this.clock();
      const existing = await this.capacity.findReservation(tx, request.podId, now);
      if (existing) {
        const machine = await this.capacity.location(tx, existing.machineId);
        return {
          placed: true,
          machineId: existing.machineId,
          gpuTypeId: machine?.gpuTypeId ?? null,
          cpuFlavorId: request.cpuFlavorIds[0] ?? null,
          dataCenterId: machine?.dataCenterId ?? null,
        };
      }
      const result = placePod({ ...request }, await this.capacity.inventory(tx, now));
      if (!result.placed) {
        this.refused('pod', result.reasons);
        return { placed: false, message: noCapacityMessage(result.reasons) };
      }
      const reservation = {
        podId: request.podId,
        machineId: result.machineId,
        gpuCount: request.gpuCount,
        vcpuCount: request.vcpuCount,
        memoryInGb: request.memoryInGb,
      };
      await this.capacity.reserve(tx, reservation, new Date(now.getTime() + RESERVATION_TTL_MS));
      return result;
    });
  }

  /**
   * For the autoscaler: places up to `count` identical workers and writes their Pod rows in one locked transaction
   * (a scale-up of hundreds of workers is one lock, one inventory read and one insert, not one of each per worker).
   */
  placeManyAndCreate(
    request: Omit<PlacementRpcRequest, 'podId'>,
    count: number,
    create: (tx: PlacementTransaction, placed: Placed[]) => Promise<void>,
  ): Promise<BatchPlacement> {
    return this.capacity.locked(async (tx) => {
      const batch = placeMany(request, await this.capacity.inventory(tx, this.clock()), count);
      if (batch.placed.length > 0) await create(tx, batch.placed);
      if (batch.placed.length < count) this.refused('worker', batch.reasons);
      return batch;
    });
  }

  /** Free capacity as placement sees it now (for the Machine rows' gpuAvailable). */
  inventory(): Promise<InventoryMachine[]> {
    return this.capacity.freeNow(this.clock());
  }
}
