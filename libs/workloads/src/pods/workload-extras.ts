import { type DbClient, SecretBox } from '@runplane/db';
import { RegistryAuthRepository } from '../registry-auth/registry-auth.repository';
import { RegistryAuthService } from '../registry-auth/registry-auth.service';
import { type WorkloadExtrasRow, WorkloadExtrasRepository } from './workload-extras.repository';

/** What a compute driver needs about a Pod beyond its workload spec, read from its row when the workload is created. */
export interface WorkloadExtras {
  interruptible: boolean;
  containerDiskInGb: number;
  /** The Pod's own volume (kept across stops) when it has no network volume; 0 for none. */
  volumeInGb: number;
  volumeMountPath: string;
  dataCenterId: string | null;
  networkVolume: { id: string; sizeGb: number; dataCenterId?: string } | null;
  registryAuth: { id: string; username: string; password: string } | null;
}

/**
 * Reads the extras of Pods the driver is about to run: interruptible, disks, the network volume and the registry
 * credentials (decrypted with the deployment's key only here, on their way into a pull Secret).
 */
export class WorkloadExtrasReader {
  constructor(
    private readonly rows: WorkloadExtrasRepository,
    /** Null when the deployment has no encryption key: Pods with a registry auth then cannot run. */
    private readonly auths: RegistryAuthService | null,
  ) {}

  /** The extras of each Pod, in the order asked (one query for all); an Error for a Pod that cannot get them. */
  async extrasOf(podIds: readonly string[]): Promise<(WorkloadExtras | Error)[]> {
    const byId = await this.rows.rows(podIds);
    return Promise.all(
      podIds.map(async (podId) => {
        const row = byId.get(podId);
        if (!row) return new Error(`Pod ${podId} no longer exists`);
        return this.extras(row).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
      }),
    );
  }

  private async extras(row: WorkloadExtrasRow): Promise<WorkloadExtras> {
    return {
      interruptible: row.interruptible,
      containerDiskInGb: row.containerDiskInGb,
      volumeInGb: row.volumeInGb,
      volumeMountPath: row.volumeMountPath,
      dataCenterId: row.dataCenterId,
      networkVolume: row.networkVolume
        ? { id: row.networkVolume.id, sizeGb: row.networkVolume.size, dataCenterId: row.networkVolume.dataCenterId }
        : null,
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

/** The extras reader over one database client; `encryptionKey` opens registry passwords (none: Pods without auths only). */
export function createWorkloadExtrasReader(db: DbClient, encryptionKey: Buffer | undefined): WorkloadExtrasReader {
  const auths = encryptionKey
    ? new RegistryAuthService(new RegistryAuthRepository(db), new SecretBox(encryptionKey))
    : null;
  return new WorkloadExtrasReader(new WorkloadExtrasRepository(db), auths);
}
