import type { MachinesRepository } from '@runplane/placement';
import type { ComputeDriver } from '../drivers/compute-driver';

/** Unchanged machine rows are still rewritten this often (their lastSeenAt). */
const REWRITE_UNCHANGED_MS = 60_000;

/**
 * Mirrors the driver's machines into the Machine table: GPU type from the GFD product label via the catalog's
 * `gfdProduct`, data center, GPU totals. A machine whose product is not in the catalog keeps a null GPU type and so
 * never receives GPU Pods.
 */
export class InventoryService {
  /** What each machine row was last written with, and when: unchanged machines are rewritten only every minute. */
  private readonly written = new Map<string, { signature: string; at: number }>();
  /** GFD product per machine name, as last reported (the driver's GPU selector for a workload). */
  private readonly products = new Map<string, string | null>();

  constructor(
    private readonly driver: ComputeDriver,
    private readonly machines: MachinesRepository,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async sync(): Promise<void> {
    const [reported, byProduct] = await Promise.all([this.driver.machines(), this.machines.gpuTypesByProduct()]);
    const now = this.clock();
    for (const machine of reported) {
      this.products.set(machine.name, machine.gpuProduct);
      const gpuTypeId = machine.gpuProduct === null ? null : (byProduct.get(machine.gpuProduct) ?? null);
      // Clusters have hundreds of nodes and the loop runs every tick: skip rows that would not change.
      const signature = JSON.stringify([machine, gpuTypeId]);
      const last = this.written.get(machine.name);
      if (last && last.signature === signature && now.getTime() - last.at < REWRITE_UNCHANGED_MS) continue;
      await this.machines.upsert(machine, gpuTypeId, now);
      this.written.set(machine.name, { signature, at: now.getTime() });
    }
    await this.machines.markGone(reported.map((machine) => machine.name));
  }

  /** The GFD product label of a machine, as of the last sync. */
  gpuProductOf(machineName: string): string | null {
    return this.products.get(machineName) ?? null;
  }
}
