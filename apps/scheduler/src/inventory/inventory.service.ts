import type { ComputeDriver } from '../drivers/compute-driver';
import type { MachinesRepository } from './machines.repository';

/**
 * Mirrors the driver's machines into the Machine table: GPU type from the GFD product label via the catalog's
 * `gfdProduct`, data center, GPU totals. A machine whose product is not in the catalog keeps a null GPU type and so
 * never receives GPU Pods.
 */
export class InventoryService {
  constructor(
    private readonly driver: ComputeDriver,
    private readonly machines: MachinesRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async sync(): Promise<void> {
    const [reported, byProduct] = await Promise.all([this.driver.machines(), this.machines.gpuTypesByProduct()]);
    const now = this.clock();
    for (const machine of reported) {
      const gpuTypeId = machine.gpuProduct === null ? null : (byProduct.get(machine.gpuProduct) ?? null);
      await this.machines.upsert(machine, gpuTypeId, now);
    }
    await this.machines.markGone(reported.map((machine) => machine.name));
  }
}
