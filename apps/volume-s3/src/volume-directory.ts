import type { S3KeysService } from '@runplane/accounts';
import type { S3Directory, S3Volume } from '@runplane/volume-buckets';
import type { NetworkVolumesRepository } from '@runplane/workloads';

const GIB = 1024 ** 3;

/** The S3 endpoint's view of Runplane: S3 keys, and an account's network volumes in the endpoint's data center. */
export class VolumeDirectory implements S3Directory {
  constructor(
    private readonly keys: S3KeysService,
    private readonly volumesRepo: NetworkVolumesRepository,
    private readonly dataCenterId: string,
  ) {}

  credential(accessKeyId: string): Promise<{ accountId: string; secretAccessKey: string } | null> {
    return this.keys.credential(accessKeyId);
  }

  /** A volume's size is in GB as the API takes it, counted in GiB as the Kubernetes driver claims it. */
  async volumes(accountId: string): Promise<S3Volume[]> {
    const rows = await this.volumesRepo.listByAccount(accountId);
    return rows
      .filter((row) => row.dataCenterId === this.dataCenterId)
      .map((row) => ({ id: row.id, sizeBytes: row.size * GIB }));
  }
}
