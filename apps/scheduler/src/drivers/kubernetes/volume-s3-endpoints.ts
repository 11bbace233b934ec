import { applyObject, buildVolumeS3Objects, type KubeClients, type VolumeS3Input } from '@runplane/kube';
import { FIELD_MANAGER } from './workload-writer';

/** What every data center's S3 endpoint shares: Runplane's image, the storage and the chart's Secrets. */
export type VolumeS3Settings = Omit<VolumeS3Input, 'dataCenterId'>;

/** The wait before the first retry of a failed apply; each failure in a row doubles it, up to the cap. */
export const VOLUME_S3_FIRST_RETRY_MS = 250;
export const VOLUME_S3_MAX_RETRY_MS = 30_000;

/** How long to wait after the `failures`-th failure in a row (1-based) before applying again. */
export function volumeS3RetryDelayMs(failures: number): number {
  return Math.min(VOLUME_S3_MAX_RETRY_MS, VOLUME_S3_FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1));
}

interface Failing {
  failures: number;
  retryAt: number;
}

/**
 * Keeps an S3 endpoint of network volumes in each data center the cluster's nodes are in: its ReadWriteMany volumes
 * claim, the volume-s3 Deployment and its Service, applied server-side (so applying again changes nothing) the first
 * time the data center is seen. After a failure it applies again on the first call once the backoff has passed
 * (250 ms, doubling per failure in a row up to 30 s, reset by a success), logging each failure once.
 */
export class VolumeS3Endpoints {
  private readonly applied = new Map<string, Promise<void>>();
  private readonly failing = new Map<string, Failing>();

  constructor(
    private readonly clients: Pick<KubeClients, 'objects'>,
    private readonly settings: VolumeS3Settings,
    private readonly log: (message: string, error?: unknown) => void,
    private readonly clock: { now(): number } = Date,
  ) {}

  /**
   * Applies the objects of data centers not applied yet whose backoff has passed; resolves once they are (failures
   * are logged, not thrown).
   */
  async ensure(dataCenterIds: Iterable<string | null>): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const dataCenterId of new Set(dataCenterIds)) {
      if (!dataCenterId) continue;
      let applying = this.applied.get(dataCenterId);
      if (!applying) {
        const failing = this.failing.get(dataCenterId);
        if (failing && this.clock.now() < failing.retryAt) continue;
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
      this.failing.delete(dataCenterId);
    } catch (error) {
      this.applied.delete(dataCenterId);
      const failures = (this.failing.get(dataCenterId)?.failures ?? 0) + 1;
      const delayMs = volumeS3RetryDelayMs(failures);
      this.failing.set(dataCenterId, { failures, retryAt: this.clock.now() + delayMs });
      this.log(
        `Could not apply the S3 endpoint of ${dataCenterId} (${failures} in a row; next try in ${delayMs} ms)`,
        error,
      );
    }
  }
}
