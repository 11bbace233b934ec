import type {
  V1Container,
  V1EnvVar,
  V1NodeSelectorRequirement,
  V1Pod,
  V1PodSpec,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import {
  baseLabels,
  GENERATION_ANNOTATION,
  GFD_LABELS,
  GPU_RESOURCE,
  LABELS,
  PRIORITY_CLASS_NAMES,
  TOPOLOGY_LABELS,
  type WorkloadKind,
} from '../labels';
import { parsePorts } from './ports';

/** An environment variable read from a Secret key (worker tokens, registry-free credentials). */
export interface SecretEnvVar {
  name: string;
  secretName: string;
  key: string;
}

/** Storage mounted at the volume mount path: a claim (network volume or per-pod PVC) or node-local scratch space. */
/** A claim (a directory of it with `subPath`: a network volume on its data center's shared filesystem), or scratch. */
export type WorkloadVolume =
  { mountPath: string; claimName: string; subPath?: string } | { mountPath: string; scratchSizeGb: number };

/** Everything the scheduler decided about one workload; plain data, no domain types. */
export interface WorkloadPodInput {
  name: string;
  namespace: string;
  podId: string;
  accountId: string;
  kind: WorkloadKind;
  /** Required for workers. */
  endpointId?: string;
  image: string;
  /** Replaces the image ENTRYPOINT when non-empty (RunPod `dockerEntrypoint`). */
  dockerEntrypoint?: readonly string[];
  /** Replaces the image CMD when non-empty (RunPod `dockerStartCmd`). */
  dockerStartCmd?: readonly string[];
  env?: Readonly<Record<string, string>>;
  secretEnv?: readonly SecretEnvVar[];
  /** RunPod port specs, e.g. ["8888/http", "22/tcp"]. */
  ports?: readonly string[];
  /** Omitted or null for CPU workloads. */
  gpu?: { product: string; count: number } | null;
  vcpuCount: number;
  memoryInGb: number;
  containerDiskInGb: number;
  /** Allowed data centers (node region label); empty means any. */
  dataCenterIds: readonly string[];
  /** Extra node labels the operator requires (dedicated node pools). */
  nodeSelector?: Readonly<Record<string, string>>;
  interruptible: boolean;
  volume?: WorkloadVolume | null;
  imagePullSecrets?: readonly string[];
  terminationGracePeriodSeconds?: number;
  /** Desired-spec generation, recorded so the reconciler can tell a stale pod from a current one. */
  generation?: number;
}

/** Name of the single workload container. */
export const WORKLOAD_CONTAINER = 'workload';
const VOLUME_NAME = 'workspace';
const DEFAULT_GRACE_SECONDS = 30;

function workloadLabels(input: WorkloadPodInput): Record<string, string> {
  if (input.kind === 'worker' && !input.endpointId) throw new RangeError('A worker pod needs an endpointId');
  return {
    ...baseLabels(input.accountId),
    [LABELS.podId]: input.podId,
    [LABELS.kind]: input.kind,
    ...(input.endpointId ? { [LABELS.endpointId]: input.endpointId } : {}),
  };
}

function envVars(input: WorkloadPodInput): V1EnvVar[] {
  const plain = Object.entries(input.env ?? {}).map(([name, value]) => ({ name, value }));
  const fromSecrets = (input.secretEnv ?? []).map(({ name, secretName, key }) => ({
    name,
    valueFrom: { secretKeyRef: { name: secretName, key } },
  }));
  return [...plain, ...fromSecrets];
}

/** Requests equal limits (Guaranteed QoS): a rented machine slice is not overcommitted. */
function resources(input: WorkloadPodInput): Record<string, string> {
  if (input.gpu && (!Number.isInteger(input.gpu.count) || input.gpu.count < 1)) {
    throw new RangeError(`GPU count must be a positive integer, got ${input.gpu.count}`);
  }
  const quantities: Record<string, string> = {};
  if (input.vcpuCount > 0) quantities['cpu'] = String(input.vcpuCount);
  if (input.memoryInGb > 0) quantities['memory'] = `${input.memoryInGb}Gi`;
  if (input.containerDiskInGb > 0) quantities['ephemeral-storage'] = `${input.containerDiskInGb}Gi`;
  if (input.gpu) quantities[GPU_RESOURCE] = String(input.gpu.count);
  return quantities;
}

function container(input: WorkloadPodInput): V1Container {
  const quantities = resources(input);
  const env = envVars(input);
  const ports = parsePorts(input.ports).map((p) => ({ name: p.name, containerPort: p.port, protocol: p.transport }));
  return {
    name: WORKLOAD_CONTAINER,
    image: input.image,
    ...(input.dockerEntrypoint?.length ? { command: [...input.dockerEntrypoint] } : {}),
    ...(input.dockerStartCmd?.length ? { args: [...input.dockerStartCmd] } : {}),
    ...(env.length > 0 ? { env } : {}),
    ...(ports.length > 0 ? { ports } : {}),
    resources: { requests: { ...quantities }, limits: { ...quantities } },
    ...(input.volume ? { volumeMounts: [volumeMount(input.volume)] } : {}),
  };
}

function volumeMount(volume: WorkloadVolume): V1VolumeMount {
  const subPath = 'subPath' in volume && volume.subPath ? { subPath: volume.subPath } : {};
  return { name: VOLUME_NAME, mountPath: volume.mountPath, ...subPath };
}

function volumes(volume: WorkloadVolume | null | undefined): V1Volume[] | undefined {
  if (!volume) return undefined;
  if ('claimName' in volume) return [{ name: VOLUME_NAME, persistentVolumeClaim: { claimName: volume.claimName } }];
  return [{ name: VOLUME_NAME, emptyDir: { sizeLimit: `${volume.scratchSizeGb}Gi` } }];
}

function placement(input: WorkloadPodInput): Pick<V1PodSpec, 'affinity' | 'nodeSelector' | 'tolerations'> {
  const expressions: V1NodeSelectorRequirement[] = [];
  if (input.gpu) expressions.push({ key: GFD_LABELS.product, operator: 'In', values: [input.gpu.product] });
  if (input.dataCenterIds.length > 0) {
    expressions.push({ key: TOPOLOGY_LABELS.region, operator: 'In', values: [...input.dataCenterIds] });
  }
  const nodeSelector =
    input.nodeSelector && Object.keys(input.nodeSelector).length > 0 ? { ...input.nodeSelector } : undefined;
  return {
    ...(expressions.length > 0
      ? {
          affinity: {
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchExpressions: expressions }],
              },
            },
          },
        }
      : {}),
    ...(nodeSelector ? { nodeSelector } : {}),
    // GPU nodes carry the device plugin's taint so CPU-only pods stay off them.
    ...(input.gpu ? { tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }] } : {}),
  };
}

/**
 * The Kubernetes pod of a Runplane Pod or endpoint worker. Both use restartPolicy Always: a crashed or exited
 * container (e.g. a worker that refreshes itself after a job) restarts in place and keeps its GPUs; the scheduler
 * sees a crash loop through readPodStatus (restartCount, waitingReason) and decides whether to replace it.
 * Service links and the service-account token are off: user code gets neither cluster env vars nor credentials.
 */
export function buildWorkloadPod(input: WorkloadPodInput): V1Pod {
  const podVolumes = volumes(input.volume);
  const pullSecrets = (input.imagePullSecrets ?? []).map((name) => ({ name }));
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: workloadLabels(input),
      ...(input.generation !== undefined ? { annotations: { [GENERATION_ANNOTATION]: String(input.generation) } } : {}),
    },
    spec: {
      containers: [container(input)],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: input.terminationGracePeriodSeconds ?? DEFAULT_GRACE_SECONDS,
      priorityClassName: input.interruptible ? PRIORITY_CLASS_NAMES.interruptible : PRIORITY_CLASS_NAMES.onDemand,
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      ...placement(input),
      ...(podVolumes ? { volumes: podVolumes } : {}),
      ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
    },
  };
}
