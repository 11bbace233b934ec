import {
  baseLabels,
  buildHttpService,
  buildPortService,
  buildPullSecret,
  buildVolumeClaim,
  buildWorkloadPod,
  kubeNames,
  LABELS,
  type SecretEnvVar,
  type V1PersistentVolumeClaim,
  type V1Pod,
  type V1Secret,
  type V1Service,
  volumeS3Names,
  type WorkloadVolume,
} from '@runplane/kube';
import type { WorkloadExtras } from '@runplane/workloads';
import type { WorkloadSpec } from '../compute-driver';
import { withLoadBalancerPorts } from './load-balancer-ports';

/** Node label that pins a workload to the machine placement chose. */
export const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/** Variables that never go into the pod spec in clear (anyone who may read pods would see them). */
const SECRET_ENV = new Set(['RUNPOD_AI_API_KEY']);
const ENV_SECRET_KEY = (name: string): string => name.toLowerCase().replace(/_/g, '-');

/** Cluster-wide settings of the objects. */
export interface ObjectSettings {
  namespace: string;
  /** The operator's node selector (node pool); every workload requires it. */
  nodeSelector: Readonly<Record<string, string>>;
  storageClassName?: string;
  /** Whether the container disk is requested as ephemeral-storage. */
  requestContainerDisk: boolean;
  terminationGracePeriodSeconds: number;
  /** Network volumes are directories of their data center's volumes claim (the S3 endpoints are on). */
  sharedVolumes?: boolean;
}

/** Every object one workload needs; null where it needs none. */
export interface WorkloadObjects {
  pod: V1Pod;
  /**
   * The hidden variables (base64, by Secret key) the pod reads from the shared token Secret `tokenSecret`; the driver
   * gathers those of the workloads it creates together into that one Secret.
   */
  tokenSecret: { name: string; data: Record<string, string> } | null;
  claim: V1PersistentVolumeClaim | null;
  pullSecret: V1Secret | null;
  portService: V1Service | null;
  httpService: V1Service | null;
}

/** Names of the objects that belong to one Runplane Pod alone (shared claims and pull secrets are not among them). */
export const ownNames = {
  pod: kubeNames.pod,
  /** The per-Pod token Secret of earlier versions (still removed with its Pod). */
  envSecret: (podId: string): string => `rp-${podId}-env`,
  podVolume: (podId: string): string => `rp-${podId}-volume`,
  portService: kubeNames.portService,
  httpService: kubeNames.httpService,
};

/** Label of the Secrets holding the worker tokens of workloads created together (value: "true"). */
export const TOKEN_SECRET_LABEL = 'runplane.io/token-secret';

/** A token Secret of an account: the hidden variables of several workloads, each under keys of its own. */
export function buildTokenSecret(
  name: string,
  namespace: string,
  accountId: string,
  data: Record<string, string>,
): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name, namespace, labels: { ...baseLabels(accountId), [TOKEN_SECRET_LABEL]: 'true' } },
    data,
  };
}

/** The Pod ids whose variables a token Secret holds (its keys are `<podId>.<variable>`): the only pods that read it. */
export function tokenSecretPodIds(secret: V1Secret): string[] {
  return [...new Set(Object.keys(secret.data ?? {}).map((key) => key.slice(0, key.indexOf('.'))))];
}

function hiddenEnv(
  spec: WorkloadSpec,
  secretName: string,
): { tokenSecret: WorkloadObjects['tokenSecret']; refs: SecretEnvVar[] } {
  const hidden = Object.entries(spec.env).filter(([name]) => SECRET_ENV.has(name));
  if (hidden.length === 0) return { tokenSecret: null, refs: [] };
  // Keys carry the Pod id: the Secret is shared, and each container reads only its own.
  const key = (name: string): string => `${spec.podId}.${ENV_SECRET_KEY(name)}`;
  const data = Object.fromEntries(hidden.map(([name, value]) => [key(name), Buffer.from(value).toString('base64')]));
  return {
    tokenSecret: { name: secretName, data },
    refs: hidden.map(([name]) => ({ name, secretName, key: key(name) })),
  };
}

/** With the data centers' S3 endpoints on, a network volume is its directory of the data center's volumes claim. */
function sharedVolumeOf(extras: WorkloadExtras, settings: ObjectSettings): WorkloadVolume | null {
  const dataCenterId = settings.sharedVolumes ? extras.networkVolume?.dataCenterId : undefined;
  if (!extras.networkVolume || !dataCenterId) return null;
  const claimName = volumeS3Names.claim(dataCenterId);
  return { mountPath: extras.volumeMountPath, claimName, subPath: extras.networkVolume.id };
}

function claimOf(
  spec: WorkloadSpec,
  extras: WorkloadExtras,
  settings: ObjectSettings,
): { claim: V1PersistentVolumeClaim | null; volume: WorkloadVolume | null } {
  const common = {
    namespace: settings.namespace,
    accountId: spec.accountId,
    storageClassName: settings.storageClassName,
  };
  const shared = sharedVolumeOf(extras, settings);
  if (shared) return { claim: null, volume: shared };
  if (extras.networkVolume) {
    const name = kubeNames.volumeClaim(extras.networkVolume.id);
    const claim = buildVolumeClaim({
      ...common,
      name,
      volumeId: extras.networkVolume.id,
      sizeGb: extras.networkVolume.sizeGb,
    });
    return { claim, volume: { mountPath: extras.volumeMountPath, claimName: name } };
  }
  // Workers keep nothing between runs; a Pod's own volume survives stop and start like RunPod's volume disk.
  if (extras.volumeInGb <= 0 || spec.endpointId !== null) return { claim: null, volume: null };
  const name = ownNames.podVolume(spec.podId);
  const claim = buildVolumeClaim({
    ...common,
    name,
    volumeId: spec.podId,
    sizeGb: extras.volumeInGb,
    accessMode: 'ReadWriteOnce',
  });
  claim.metadata = { ...claim.metadata, labels: { ...claim.metadata?.labels, [LABELS.podId]: spec.podId } };
  return { claim, volume: { mountPath: extras.volumeMountPath, claimName: name } };
}

function pullSecretOf(spec: WorkloadSpec, extras: WorkloadExtras, settings: ObjectSettings): V1Secret | null {
  if (!extras.registryAuth) return null;
  return buildPullSecret({
    name: kubeNames.pullSecret(extras.registryAuth.id),
    namespace: settings.namespace,
    accountId: spec.accountId,
    registryAuthId: extras.registryAuth.id,
    username: extras.registryAuth.username,
    password: extras.registryAuth.password,
    image: spec.image,
  });
}

/** What the pod mounts and reads beside its spec: its volume, its pull secret and its hidden variables. */
interface PodAttachments {
  volume: WorkloadVolume | null;
  pullSecret: V1Secret | null;
  secretEnv: SecretEnvVar[];
}

/** The workload pod, pinned to the placed machine (hostname label, plus the operator's node selector). */
function podOf(spec: WorkloadSpec, extras: WorkloadExtras, settings: ObjectSettings, attached: PodAttachments): V1Pod {
  return buildWorkloadPod({
    name: ownNames.pod(spec.podId),
    namespace: settings.namespace,
    podId: spec.podId,
    accountId: spec.accountId,
    kind: spec.endpointId === null ? 'pod' : 'worker',
    ...(spec.endpointId === null ? {} : { endpointId: spec.endpointId }),
    image: spec.image,
    // The row keeps entrypoint + start command as one list; the container gets it as its command.
    dockerEntrypoint: spec.command,
    env: Object.fromEntries(Object.entries(spec.env).filter(([name]) => !SECRET_ENV.has(name))),
    secretEnv: attached.secretEnv,
    ports: spec.ports,
    gpu: spec.gpuProduct !== null && spec.gpuCount > 0 ? { product: spec.gpuProduct, count: spec.gpuCount } : null,
    vcpuCount: spec.vcpuCount,
    memoryInGb: spec.memoryInGb,
    containerDiskInGb: settings.requestContainerDisk ? extras.containerDiskInGb : 0,
    dataCenterIds: extras.dataCenterId === null ? [] : [extras.dataCenterId],
    nodeSelector: { ...settings.nodeSelector, [HOSTNAME_LABEL]: spec.machineName },
    interruptible: extras.interruptible,
    volume: attached.volume,
    imagePullSecrets: attached.pullSecret ? [attached.pullSecret.metadata?.name as string] : [],
    terminationGracePeriodSeconds: settings.terminationGracePeriodSeconds,
    generation: spec.generation,
  });
}

/**
 * The Kubernetes objects of one workload, built with the libs/kube builders: the pod pinned to the placed machine
 * (hostname label, plus the GPU product, region and operator node selector; a load-balancing worker's PORT and
 * PORT_HEALTH as containerPorts), its Services for exposed ports, its volume claim, its pull secret, and its worker token as keys of the token Secret named by the caller.
 */
export function buildWorkloadObjects(
  spec: WorkloadSpec,
  extras: WorkloadExtras,
  settings: ObjectSettings,
  tokenSecretName: string,
): WorkloadObjects {
  const { tokenSecret, refs } = hiddenEnv(spec, tokenSecretName);
  const { claim, volume } = claimOf(spec, extras, settings);
  const pullSecret = pullSecretOf(spec, extras, settings);
  const built = podOf(spec, extras, settings, { volume, pullSecret, secretEnv: refs });
  const pod = spec.loadBalancer ? withLoadBalancerPorts(built, spec.loadBalancer) : built;
  const ports = { namespace: settings.namespace, podId: spec.podId, accountId: spec.accountId, ports: spec.ports };
  return {
    pod,
    tokenSecret,
    claim,
    pullSecret,
    portService: buildPortService({ ...ports, name: ownNames.portService(spec.podId) }),
    httpService: buildHttpService({ ...ports, name: ownNames.httpService(spec.podId) }),
  };
}
