import type { DbClient, Prisma } from '@runplane/db';
import { RegistryAuthRepository, RegistryAuthService, SecretBox } from '@runplane/workloads';
import { MicroBatch } from '../../batching/micro-batch';
import type { WorkloadExtras } from './workload-objects';

const EXTRAS_SELECT = {
  id: true,
  accountId: true,
  interruptible: true,
  containerDiskInGb: true,
  volumeInGb: true,
  volumeMountPath: true,
  dataCenterId: true,
  containerRegistryAuthId: true,
  networkVolume: { select: { id: true, size: true } },
} satisfies Prisma.PodSelect;

type ExtrasRow = Prisma.PodGetPayload<{ select: typeof EXTRAS_SELECT }>;

/**
 * Reads what the Kubernetes objects need beyond the WorkloadSpec from the Pod row: interruptible, disks, the network
 * volume and the registry credentials (decrypted with the deployment's key only here, on their way into a Secret).
 */
export class WorkloadExtrasRepository {
  private readonly auths: RegistryAuthService | null;

  constructor(
    private readonly db: DbClient,
    encryptionKey: Buffer | undefined,
  ) {
    this.auths = encryptionKey
      ? new RegistryAuthService(new RegistryAuthRepository(db), new SecretBox(encryptionKey))
      : null;
  }

  /** Extras asked for in the same turn of the event loop (a pass starting many workloads) are read in one query. */
  private readonly rows = new MicroBatch<string, ExtrasRow | null>(async (podIds) => {
    const found = await this.db.pod.findMany({ where: { id: { in: [...new Set(podIds)] } }, select: EXTRAS_SELECT });
    const byId = new Map(found.map((row) => [row.id, row]));
    return podIds.map((id) => byId.get(id) ?? null);
  });

  async extras(podId: string): Promise<WorkloadExtras> {
    const row = await this.rows.load(podId);
    if (!row) throw new Error(`Pod ${podId} no longer exists`);
    return {
      interruptible: row.interruptible,
      containerDiskInGb: row.containerDiskInGb,
      volumeInGb: row.volumeInGb,
      volumeMountPath: row.volumeMountPath,
      dataCenterId: row.dataCenterId,
      networkVolume: row.networkVolume ? { id: row.networkVolume.id, sizeGb: row.networkVolume.size } : null,
      registryAuth: row.containerRegistryAuthId
        ? await this.credentials(row.accountId, row.containerRegistryAuthId)
        : null,
    };
  }

  private async credentials(accountId: string, id: string): Promise<WorkloadExtras['registryAuth']> {
    if (!this.auths)
      throw new Error('The Pod uses a container registry auth but the scheduler has no RUNPLANE_ENCRYPTION_KEY');
    return { id, ...(await this.auths.credentials(accountId, id)) };
  }
}
