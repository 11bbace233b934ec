import type { ScalableEndpoint, ScalingRepository, WorkerPrices, WorkerRow } from '@runplane/endpoints';
import { noCapacityMessage } from '@runplane/placement';
import type { PlacementService } from '../placement/placement.service';

/** What one autoscaler pass starts from: every endpoint, every worker and the prices of new ones. */
export interface FleetSnapshot {
  endpoints: ScalableEndpoint[];
  workers: WorkerRow[];
  prices: WorkerPrices;
}

/** How many workers were added, and why not all of those asked for (null when all were). */
export interface Added {
  added: number;
  refusal: string | null;
}

/** A new worker's hourly price: its GPUs at the secure (else community) price, or its vCPUs at its flavor's. */
function priceOf(
  endpoint: ScalableEndpoint,
  placed: { gpuTypeId: string | null; cpuFlavorId: string | null },
  prices: WorkerPrices,
): number {
  if (placed.gpuTypeId !== null) {
    const price = prices.gpu.get(placed.gpuTypeId);
    return Math.round((price?.secure ?? price?.community ?? 0) * endpoint.gpuCount * 1e6) / 1e6;
  }
  return Math.round((prices.cpu.get(placed.cpuFlavorId ?? '') ?? 0) * endpoint.vcpuCount * 1e6) / 1e6;
}

/**
 * The worker Pods of every endpoint: read for a pass, added through the same locked placement as Pods (their rows
 * written in the placement's transaction, so their capacity is booked with them), and deleted.
 */
export class WorkerFleet {
  constructor(
    private readonly repository: ScalingRepository,
    private readonly placement: PlacementService,
  ) {}

  async snapshot(): Promise<FleetSnapshot> {
    const [endpoints, workers, prices] = await Promise.all([
      this.repository.endpoints(),
      this.repository.workers(),
      this.repository.prices(),
    ]);
    return { endpoints, workers, prices };
  }

  /** One worker, or null when its row is gone. */
  worker(id: string): Promise<WorkerRow | null> {
    return this.repository.worker(id);
  }

  /** Places and writes up to `count` workers of the endpoint at once, priced on demand, created at `now`. */
  async add(endpoint: ScalableEndpoint, count: number, prices: WorkerPrices, now: Date): Promise<Added> {
    const batch = await this.placement.placeManyAndCreate(
      {
        accountId: endpoint.accountId,
        computeType: endpoint.computeType,
        gpuTypeIds: endpoint.gpuTypeIds,
        gpuTypePriority: 'custom',
        gpuCount: endpoint.computeType === 'GPU' ? endpoint.gpuCount : 0,
        cloudType: 'ALL',
        dataCenterIds: endpoint.dataCenterIds,
        volumeDataCenterId: endpoint.networkVolume?.dataCenterId ?? null,
        cpuFlavorIds: endpoint.cpuFlavorIds,
        vcpuCount: endpoint.vcpuCount,
        memoryInGb: 0,
      },
      count,
      async (tx, placements) => {
        const priced = placements.map((placed) => ({ ...placed, costPerHr: priceOf(endpoint, placed, prices) }));
        await this.repository.createWorkers(tx, endpoint, priced, now);
      },
    );
    const added = batch.placed.length;
    return { added, refusal: added < count ? noCapacityMessage(batch.reasons) : null };
  }

  async delete(id: string): Promise<void> {
    await this.repository.deleteWorker(id);
  }
}
