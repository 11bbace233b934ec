import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Logger } from '@nestjs/common';
import type { DbClient } from '@runplane/db';
import { createKubeClients } from '@runplane/kube';
import type { KubeDriverConfig } from './kube-driver-config';
import { KubernetesDriver } from './kubernetes-driver';
import { WorkloadExtrasRepository } from './workload-extras.repository';

const logger = new Logger('KubernetesDriver');

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
  const extras = new WorkloadExtrasRepository(db, config.RUNPLANE_ENCRYPTION_KEY);
  return new KubernetesDriver({
    clients,
    objects: {
      namespace: config.KUBE_NAMESPACE,
      nodeSelector: config.KUBE_NODE_SELECTOR,
      ...(config.KUBE_STORAGE_CLASS ? { storageClassName: config.KUBE_STORAGE_CLASS } : {}),
      requestContainerDisk: config.KUBE_REQUEST_CONTAINER_DISK,
    },
    stopGraceMs: config.SCHEDULER_STOP_GRACE_MS,
    extras: (podId) => extras.extras(podId),
    leaderLease: config.KUBE_LEADER_LEASE,
    applyPriorityClasses: config.KUBE_APPLY_PRIORITY_CLASSES,
    leaderIdentity: config.KUBE_LEADER_IDENTITY ?? `${hostname()}-${randomBytes(4).toString('hex')}`,
    log: (message, error) => logger.error(`${message}: ${error instanceof Error ? error.message : String(error)}`),
    resyncMs: 60_000,
  });
}
