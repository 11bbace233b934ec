import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { baseLabels, LABELS } from '../labels';

/** A network volume (or a per-pod persistent disk) as a PersistentVolumeClaim. */
export interface VolumeClaimInput {
  name: string;
  namespace: string;
  accountId: string;
  volumeId: string;
  sizeGb: number;
  /** Omitted: the cluster's default StorageClass. */
  storageClassName?: string;
  /** Network volumes are shared by many pods (ReadWriteMany, the default); a per-pod disk may use ReadWriteOnce. */
  accessMode?: 'ReadWriteMany' | 'ReadWriteOnce';
}

/** PVC requesting `sizeGb` Gi. Volumes may only grow, which a StorageClass with allowVolumeExpansion honours. */
export function buildVolumeClaim(input: VolumeClaimInput): V1PersistentVolumeClaim {
  if (!Number.isInteger(input.sizeGb) || input.sizeGb < 1) {
    throw new RangeError(`Volume size must be a positive whole number of GB, got ${input.sizeGb}`);
  }
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: { ...baseLabels(input.accountId), [LABELS.volumeId]: input.volumeId },
    },
    spec: {
      accessModes: [input.accessMode ?? 'ReadWriteMany'],
      resources: { requests: { storage: `${input.sizeGb}Gi` } },
      ...(input.storageClassName ? { storageClassName: input.storageClassName } : {}),
    },
  };
}
