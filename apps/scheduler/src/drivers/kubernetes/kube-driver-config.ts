import { encryptionEnv, envBoolean, envInt, z } from '@runplane/config';

/** `key=value,key2=value2` (a Kubernetes equality label selector) as a label map; empty when unset. */
const labelSelector = z
  .string()
  .optional()
  .transform((value, ctx): Record<string, string> => {
    const labels: Record<string, string> = {};
    for (const part of (value ?? '').split(',')) {
      if (part.trim() === '') continue;
      const match = /^\s*([A-Za-z0-9./_-]+)\s*=\s*([A-Za-z0-9._-]*)\s*$/.exec(part);
      if (!match) {
        ctx.addIssue({ code: 'custom', message: `expected key=value pairs separated by commas, got "${part}"` });
        return z.NEVER;
      }
      labels[match[1] as string] = match[2] as string;
    }
    return labels;
  });

/**
 * Settings of the `kubernetes` compute driver. They are parsed with the rest of the scheduler's environment and
 * only read when SCHEDULER_DRIVER=kubernetes.
 */
export const kubeDriverEnv = {
  /** Kubeconfig file; unset means the scheduler runs in the cluster and uses its service account. */
  KUBECONFIG: z.string().min(1).optional(),
  /** Namespace of every workload object (pods, services, claims, pull secrets) and of the leader Lease. */
  KUBE_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, { error: 'expected a Kubernetes namespace name' })
    .default('runplane'),
  /** Nodes Runplane may use (e.g. `runplane.io/node-pool=gpu-a`); also required by every workload pod. */
  KUBE_NODE_SELECTOR: labelSelector,
  /** Client-side request budget towards the apiserver: sustained requests per second and burst. */
  KUBE_QPS: envInt({ min: 1, max: 10_000, default: 50 }),
  KUBE_BURST: envInt({ min: 1, max: 10_000, default: 100 }),
  /** StorageClass of volume claims; unset uses the cluster default. */
  KUBE_STORAGE_CLASS: z.string().min(1).optional(),
  /** Request the container disk as ephemeral-storage (off for nodes that report none, such as kwok's). */
  KUBE_REQUEST_CONTAINER_DISK: envBoolean(true),
  /** Name of the Lease the scheduler replicas elect their leader on. */
  KUBE_LEADER_LEASE: z.string().min(1).default('runplane-scheduler'),
  /** This replica's identity in the election; defaults to the host name plus a random suffix. */
  KUBE_LEADER_IDENTITY: z.string().min(1).optional(),
  /**
   * Apply the PriorityClasses workload pods name at start (cluster-wide objects). Off when an installer such as the
   * Helm chart created them, so the scheduler needs no permission to write cluster-wide objects.
   */
  KUBE_APPLY_PRIORITY_CLASSES: envBoolean(true),
  /**
   * Runplane's image: set, each data center of the nodes gets an S3 endpoint of network volumes (see the README, "S3
   * access to network volumes"), and network volumes become directories of its ReadWriteMany volumes claim.
   */
  KUBE_VOLUME_S3_IMAGE: z.string().min(1).optional(),
  /** A ReadWriteMany StorageClass for the data centers' volumes claims; unset: the cluster default. */
  KUBE_VOLUME_S3_STORAGE_CLASS: z.string().min(1).optional(),
  /** Size of each data center's volumes claim. */
  KUBE_VOLUME_S3_STORAGE_GB: envInt({ min: 1, max: 10_000_000, default: 1000 }),
  /** Secrets the S3 endpoints read DATABASE_URL and RUNPLANE_ENCRYPTION_KEY from (the chart's). */
  KUBE_VOLUME_S3_DATABASE_SECRET: z.string().min(1).default('runplane-database'),
  KUBE_VOLUME_S3_ENCRYPTION_SECRET: z.string().min(1).default('runplane-encryption-key'),
  /** uid and gid the S3 endpoints run as, and the group that owns (and may write) the volumes claims. */
  KUBE_VOLUME_S3_RUN_AS_USER: envInt({ min: 1, max: 2_147_483_647, default: 10001 }),
  KUBE_VOLUME_S3_RUN_AS_GROUP: envInt({ min: 1, max: 2_147_483_647, default: 10001 }),
  KUBE_VOLUME_S3_FS_GROUP: envInt({ min: 1, max: 2_147_483_647, default: 10001 }),
  /** Secrets in KUBE_NAMESPACE the S3 endpoints pull their image with, comma-separated; unset: none. */
  KUBE_VOLUME_S3_IMAGE_PULL_SECRETS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
    )
    .pipe(z.array(z.string().regex(/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/, { error: 'expected Secret names' }))),
  /** Key that decrypts container registry passwords for pull secrets (the gateway's key). */
  RUNPLANE_ENCRYPTION_KEY: encryptionEnv.RUNPLANE_ENCRYPTION_KEY.optional(),
};

/** The kubernetes driver's part of the scheduler configuration. */
export type KubeDriverConfig = z.infer<z.ZodObject<typeof kubeDriverEnv>>;
