import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { createKubeClients, type KubeClients } from '@runplane/kube';
import { createWorkloadExtrasReader, type WorkloadExtras } from '@runplane/workloads';
import { MicroBatch } from '../../batching/micro-batch';
import type { KubeDriverConfig } from './kube-driver-config';
import { KubernetesDriver } from './kubernetes-driver';
import { VolumeS3Endpoints } from './volume-s3-endpoints';

const logger = new Logger('KubernetesDriver');

/**
 * The extras of one Pod, read from its row. Extras asked for in the same turn of the event loop (a pass starting many
 * workloads) are read in one query; a Pod that cannot get its own fails alone.
 */
function batchedExtras(db: DbClient, encryptionKey: Buffer | undefined): (podId: string) => Promise<WorkloadExtras> {
  const reader = createWorkloadExtrasReader(db, encryptionKey);
  const batch = new MicroBatch<string, WorkloadExtras | Error>((podIds) => reader.extrasOf(podIds));
  return async (podId) => {
    const extras = await batch.load(podId);
    if (extras instanceof Error) throw extras;
    return extras;
  };
}

/** The kubernetes driver from the scheduler's configuration. */
export function createKubernetesDriver(
  config: KubeDriverConfig & { SCHEDULER_STOP_GRACE_MS: number },
  db: DbClient,
): KubernetesDriver {
  const clients = createKubeClients({
    ...(config.KUBECONFIG ? { kubeconfigPath: config.KUBECONFIG } : { inCluster: true as const }),
    qps: config.KUBE_QPS,
    burst: config.KUBE_BURST,
    userAgent: 'runplane-scheduler',
  });
  return new KubernetesDriver({
    clients,
    objects: {
      namespace: config.KUBE_NAMESPACE,
      nodeSelector: config.KUBE_NODE_SELECTOR,
      ...(config.KUBE_STORAGE_CLASS ? { storageClassName: config.KUBE_STORAGE_CLASS } : {}),
      requestContainerDisk: config.KUBE_REQUEST_CONTAINER_DISK,
      sharedVolumes: config.KUBE_VOLUME_S3_IMAGE !== undefined,
    },
    stopGraceMs: config.SCHEDULER_STOP_GRACE_MS,
    extras: batchedExtras(db, config.RUNPLANE_ENCRYPTION_KEY),
    leaderLease: config.KUBE_LEADER_LEASE,
    applyPriorityClasses: config.KUBE_APPLY_PRIORITY_CLASSES,
    leaderIdentity: config.KUBE_LEADER_IDENTITY ?? `${hostname()}-${randomBytes(4).toString('hex')}`,
    log,
    resyncMs: 60_000,
    ...(config.KUBE_VOLUME_S3_IMAGE ? { volumeS3: volumeS3Endpoints(config, clients) } : {}),
  });
}

function log(message: string, error?: unknown): void {
  logger.error(`${message}: ${error instanceof Error ? error.message : String(error)}`);
}

/** The data centers' S3 endpoints of network volumes (KUBE_VOLUME_S3_IMAGE set). */
function volumeS3Endpoints(config: KubeDriverConfig, clients: KubeClients): VolumeS3Endpoints {
  return new VolumeS3Endpoints(
    clients,
    {
      namespace: config.KUBE_NAMESPACE,
      image: config.KUBE_VOLUME_S3_IMAGE as string,
      storageGb: config.KUBE_VOLUME_S3_STORAGE_GB,
      databaseSecret: config.KUBE_VOLUME_S3_DATABASE_SECRET,
      encryptionKeySecret: config.KUBE_VOLUME_S3_ENCRYPTION_SECRET,
      runAs: {
        user: config.KUBE_VOLUME_S3_RUN_AS_USER,
        group: config.KUBE_VOLUME_S3_RUN_AS_GROUP,
        fsGroup: config.KUBE_VOLUME_S3_FS_GROUP,
      },
      imagePullSecrets: config.KUBE_VOLUME_S3_IMAGE_PULL_SECRETS,
      ...(config.KUBE_VOLUME_S3_STORAGE_CLASS ? { storageClassName: config.KUBE_VOLUME_S3_STORAGE_CLASS } : {}),
    },
    log,
  );
}
