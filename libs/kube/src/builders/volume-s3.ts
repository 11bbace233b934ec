import type {
  V1Container,
  V1Deployment,
  V1PersistentVolumeClaim,
  V1PodSecurityContext,
  V1SecurityContext,
  V1Service,
} from '@kubernetes/client-node';
import { LABELS, MANAGED_BY } from '../labels';

/** The port the S3 endpoint listens on, in its container and on its Service. */
export const VOLUME_S3_PORT = 8089;

/** Where the data center's volumes filesystem is mounted in the S3 endpoint's container. */
const VOLUMES_MOUNT = '/volumes';

/** A data center's S3 endpoint of network volumes: its shared filesystem, the endpoint and how to reach it. */
export interface VolumeS3Input {
  namespace: string;
  dataCenterId: string;
  /** Runplane's image: the container runs `dist/apps/volume-s3/main.js` from it. */
  image: string;
  /** A ReadWriteMany StorageClass; omitted: the cluster's default. */
  storageClassName?: string;
  /** Size of the data center's volumes filesystem. */
  storageGb: number;
  /** Secrets holding DATABASE_URL and RUNPLANE_ENCRYPTION_KEY (the chart's). */
  databaseSecret: string;
  encryptionKeySecret: string;
  /** Who the container runs as; omitted: the image's user, 10001, for each id. */
  runAs?: VolumeS3RunAs;
  /** Secrets in the namespace to pull the image with (a private registry). */
  imagePullSecrets?: readonly string[];
}

/** The uid and gid the S3 endpoint runs as, and the group that owns (and may write) the volumes claim. */
export interface VolumeS3RunAs {
  user: number;
  group: number;
  fsGroup: number;
}

/** The user of Runplane's image. */
const IMAGE_USER = 10001;

/** The objects of one data center's S3 endpoint. */
export interface VolumeS3Objects {
  claim: V1PersistentVolumeClaim;
  deployment: V1Deployment;
  service: V1Service;
}

/** Object names of a data center's S3 endpoint and volumes filesystem (data center ids are upper-case). */
export const volumeS3Names = {
  claim: (dataCenterId: string): string => `runplane-volumes-${dataCenterId.toLowerCase()}`,
  endpoint: (dataCenterId: string): string => `runplane-volume-s3-${dataCenterId.toLowerCase()}`,
};

function labelsOf(dataCenterId: string): Record<string, string> {
  return { [LABELS.managedBy]: MANAGED_BY, [LABELS.component]: 'volume-s3', [LABELS.dataCenter]: dataCenterId };
}

function claimOf(input: VolumeS3Input): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: volumeS3Names.claim(input.dataCenterId),
      namespace: input.namespace,
      labels: labelsOf(input.dataCenterId),
    },
    spec: {
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage: `${input.storageGb}Gi` } },
      ...(input.storageClassName ? { storageClassName: input.storageClassName } : {}),
    },
  };
}

const secretEnv = (name: string, secret: string) => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key: name } },
});

/**
 * Non-root with the claim's files owned by fsGroup (re-owned only when its root differs, so a large filesystem is not
 * walked at each start); nothing else writable but /tmp.
 */
function securityOf(runAs: VolumeS3RunAs = { user: IMAGE_USER, group: IMAGE_USER, fsGroup: IMAGE_USER }) {
  const pod: V1PodSecurityContext = {
    runAsNonRoot: true,
    runAsUser: runAs.user,
    runAsGroup: runAs.group,
    fsGroup: runAs.fsGroup,
    fsGroupChangePolicy: 'OnRootMismatch',
    seccompProfile: { type: 'RuntimeDefault' },
  };
  const container: V1SecurityContext = {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
  };
  return { pod, container };
}

function containerOf(input: VolumeS3Input, securityContext: V1SecurityContext): V1Container {
  const env = [
    secretEnv('DATABASE_URL', input.databaseSecret),
    secretEnv('RUNPLANE_ENCRYPTION_KEY', input.encryptionKeySecret),
    { name: 'VOLUME_S3_DATA_CENTER', value: input.dataCenterId },
    { name: 'VOLUME_S3_VOLUMES_DIR', value: VOLUMES_MOUNT },
    // Beside the volumes on the same filesystem, under a name no volume id takes.
    { name: 'VOLUME_S3_METADATA_DIR', value: `${VOLUMES_MOUNT}/.volume-s3` },
    { name: 'VOLUME_S3_HOST', value: '0.0.0.0' },
    { name: 'VOLUME_S3_PORT', value: String(VOLUME_S3_PORT) },
  ];
  return {
    name: 'volume-s3',
    image: input.image,
    args: ['node', 'dist/apps/volume-s3/main.js'],
    env,
    ports: [{ name: 's3', containerPort: VOLUME_S3_PORT }],
    volumeMounts: [
      { name: 'volumes', mountPath: VOLUMES_MOUNT },
      { name: 'tmp', mountPath: '/tmp' },
    ],
    securityContext,
  };
}

function deploymentOf(input: VolumeS3Input): V1Deployment {
  const name = volumeS3Names.endpoint(input.dataCenterId);
  const labels = labelsOf(input.dataCenterId);
  const security = securityOf(input.runAs);
  const container = containerOf(input, security.container);
  const pullSecrets = (input.imagePullSecrets ?? []).map((secret) => ({ name: secret }));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: input.namespace, labels },
    spec: {
      // One replica: size checks count the writes in flight of one process; Recreate never runs two at once.
      replicas: 1,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          securityContext: security.pod,
          ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
          containers: [container],
          volumes: [
            { name: 'volumes', persistentVolumeClaim: { claimName: volumeS3Names.claim(input.dataCenterId) } },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
    },
  };
}

/** The volumes filesystem (RWX claim), the S3 endpoint Deployment and its Service for one data center. */
export function buildVolumeS3Objects(input: VolumeS3Input): VolumeS3Objects {
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: volumeS3Names.endpoint(input.dataCenterId),
      namespace: input.namespace,
      labels: labelsOf(input.dataCenterId),
    },
    spec: {
      selector: labelsOf(input.dataCenterId),
      ports: [{ name: 's3', port: VOLUME_S3_PORT, targetPort: VOLUME_S3_PORT }],
    },
  };
  return { claim: claimOf(input), deployment: deploymentOf(input), service };
}
