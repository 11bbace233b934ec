import type { DbClient } from '@runplane/db';

/**
 * A machine as a compute driver reports it (a Kubernetes node, or one of the local driver's machines): GPUs by their
 * GFD product label.
 */
export interface ReportedMachine {
  /** Unique name (Kubernetes node name); becomes the Machine row id. */
  name: string;
  /** GFD `nvidia.com/gpu.product`, e.g. "NVIDIA-GeForce-RTX-4090"; null for CPU-only machines. */
  gpuProduct: string | null;
  gpuCount: number;
  cpuCount: number;
  memoryInGb: number;
  dataCenterId: string | null;
  secureCloud: boolean;
  /** CPU flavors a CPU-only machine serves; empty means any. */
  cpuFlavorIds: string[];
  ready: boolean;
  labels: Record<string, string>;
}

/**
 * The Machine table: the scheduler's mirror of the driver's machines. Machines belong to the whole deployment, so no
 * method takes an account.
 */
export class MachinesRepository {
  constructor(private readonly db: DbClient) {}

  /** GPU type ids by GFD product label, from the catalog. */
  async gpuTypesByProduct(): Promise<Map<string, string>> {
    const rows = await this.db.gpuType.findMany({
      where: { gfdProduct: { not: null } },
      select: { id: true, gfdProduct: true },
    });
    return new Map(rows.map((row) => [row.gfdProduct as string, row.id]));
  }

  async upsert(machine: ReportedMachine, gpuTypeId: string | null, now: Date): Promise<void> {
    const data = {
      gpuTypeId,
      gpuProduct: machine.gpuProduct,
      gpuCount: machine.gpuCount,
      cpuCount: machine.cpuCount,
      memoryInGb: machine.memoryInGb,
      dataCenterId: machine.dataCenterId,
      location: machine.dataCenterId,
      secureCloud: machine.secureCloud,
      ready: machine.ready,
      schedulable: machine.ready,
      labels: { ...machine.labels, 'runplane.io/cpu-flavors': machine.cpuFlavorIds.join(',') },
      lastSeenAt: now,
    };
    await this.db.machine.upsert({
      where: { id: machine.name },
      create: { id: machine.name, name: machine.name, ...data },
      update: data,
    });
  }

  /** Machines the driver no longer reports stop receiving Pods (their rows stay for the Pods that reference them). */
  async markGone(presentIds: string[]): Promise<void> {
    await this.db.machine.updateMany({
      where: { id: { notIn: presentIds }, ready: true },
      data: { ready: false, schedulable: false },
    });
  }

  /** Sets each machine's free GPUs, in one statement that touches only the rows whose value changed. */
  async setAvailable(available: { id: string; gpuAvailable: number }[]): Promise<void> {
    if (available.length === 0) return;
    await this.db.$executeRaw`
      UPDATE "machines" AS m SET "gpuAvailable" = v."gpuAvailable", "updatedAt" = ${new Date()}
      FROM jsonb_to_recordset(${JSON.stringify(available)}::jsonb) AS v("id" text, "gpuAvailable" integer)
      WHERE m."id" = v."id" AND m."gpuAvailable" <> v."gpuAvailable"`;
  }
}
