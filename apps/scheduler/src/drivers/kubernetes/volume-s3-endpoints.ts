import { applyObject, buildVolumeS3Objects, type KubeClients, type VolumeS3Input } from '@runplane/kube';
import { FIELD_MANAGER } from './workload-writer';

/** What every data center's S3 endpoint shares: Runplane's image, the storage and the chart's Secrets. */
export type VolumeS3Settings = Omit<VolumeS3Input, 'dataCenterId'>;

/**
 * Keeps an S3 endpoint of network volumes in each data center the cluster's nodes are in: its ReadWriteMany volumes
 * claim, the volume-s3 Deployment and its Service, applied server-side (so applying again changes nothing) the first
 * time the data center is seen, and again after a failure.
 */
export class VolumeS3Endpoints {
  private readonly applied = new Map<string, Promise<void>>();

  constructor(
    private readonly clients: Pick<KubeClients, 'objects'>,
    private readonly settings: VolumeS3Settings,
    private readonly log: (message: string, error?: unknown) => void,
  ) {}

  /** Applies the objects of data centers not applied yet; resolves once they are (failures are logged, not thrown). */
  async ensure(dataCenterIds: Iterable<string | null>): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const dataCenterId of new Set(dataCenterIds)) {
      if (!dataCenterId) continue;
      let applying = this.applied.get(dataCenterId);
      if (!applying) {
        applying = this.apply(dataCenterId);
        this.applied.set(dataCenterId, applying);
      }
      pending.push(applying);
    }
    await Promise.all(pending);
  }

  private async apply(dataCenterId: string): Promise<void> {
    const { claim, deployment, service } = buildVolumeS3Objects({ ...this.settings, dataCenterId });
    try {
      for (const object of [claim, deployment, service]) await applyObject(this.clients.objects, object, FIELD_MANAGER);
    } catch (error) {
      this.applied.delete(dataCenterId);
      this.log(`Could not apply the S3 endpoint of ${dataCenterId}`, error);
    }
  }
}
