import type { DbClient, Prisma } from '@runplane/db';

const EXTRAS_SELECT = {
  id: true,
  accountId: true,
  interruptible: true,
  containerDiskInGb: true,
  volumeInGb: true,
  volumeMountPath: true,
  dataCenterId: true,
  containerRegistryAuthId: true,
  networkVolume: { select: { id: true, size: true, dataCenterId: true } },
} satisfies Prisma.PodSelect;

/** The columns of a Pod row that a workload needs beyond its spec (disks, volumes, registry auth). */
export type WorkloadExtrasRow = Prisma.PodGetPayload<{ select: typeof EXTRAS_SELECT }>;

/**
 * Pod rows as the compute driver reads them when it creates workloads. The scheduler serves every account: rows are
 * found by Pod id, and each carries its account for the credentials it references.
 */
export class WorkloadExtrasRepository {
  constructor(private readonly db: DbClient) {}

  /** The rows of these Pods, by id, in one query; Pods without a row are left out. */
  async rows(podIds: readonly string[]): Promise<Map<string, WorkloadExtrasRow>> {
    const found = await this.db.pod.findMany({ where: { id: { in: [...new Set(podIds)] } }, select: EXTRAS_SELECT });
    return new Map(found.map((row) => [row.id, row]));
  }
}
