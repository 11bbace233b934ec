// The pods kube-scheduler binds alone in the baseline phases: the very pod the scheduler's Kubernetes driver builds for
// a worker of the bench endpoint (same builder, same RunPod worker environment, the token read from a Secret key), less
// the node placement chose, so that kube-scheduler places it; or, for the physical floor, a bare GPU pod.
import { randomBytes } from 'node:crypto';
import { newId } from '@runplane/db';
import { GPU_RESOURCE, PRIORITY_CLASS_NAMES, type V1Pod } from '@runplane/kube';
import { GPU_PRODUCT_LABEL, NODE_POOL_LABEL } from '@runplane/testing';
import { workerEnv } from '../../../apps/scheduler/src/autoscaler/worker-env';
import type { WorkloadSpec } from '../../../apps/scheduler/src/drivers/compute-driver';
import { buildWorkloadObjects, HOSTNAME_LABEL } from '../../../apps/scheduler/src/drivers/kubernetes/workload-objects';
import { podEnv } from '../../../apps/scheduler/src/reconciler/workload-specs';

/** Which pods the baseline creates: Runplane's worker pod, or a bare GPU pod (the floor). */
export type DirectPodShape = 'worker' | 'minimal';

/** The kwok GPU node pool of the bench. */
export const POOL = 'bench-scheduler';

/** The bench's GPU, data center and image: setup.ts registers its nodes and template with them. */
export const BENCH = {
  gpuTypeId: 'NVIDIA GeForce RTX 4090',
  gpuProduct: 'NVIDIA-GeForce-RTX-4090',
  dataCenterId: 'EU-RO-1',
  image: 'runplane/echo-worker:dev',
};

/** A bare GPU pod on the bench's pool. */
function minimalPod(name: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      priorityClassName: PRIORITY_CLASS_NAMES.onDemand,
      nodeSelector: { [NODE_POOL_LABEL]: POOL, [GPU_PRODUCT_LABEL]: BENCH.gpuProduct },
      tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'workload', image: BENCH.image, resources: { limits: { [GPU_RESOURCE]: '1' } } }],
    },
  };
}

/** What the scheduler runs for a worker of the bench endpoint (see WorkloadSpecs.build and the bench's settings). */
function workerSpec(ids: { podId: string; accountId: string; endpointId: string }): WorkloadSpec {
  const env = {
    ...podEnv({ id: ids.podId, gpuCount: 1, vcpuCount: 2, dataCenterId: BENCH.dataCenterId }),
    ...workerEnv({
      jobApiUrl: 'http://127.0.0.1:8081',
      endpointId: ids.endpointId,
      workerId: ids.podId,
      gpuTypeId: BENCH.gpuTypeId,
      token: `rpw_${randomBytes(32).toString('base64url')}`,
      pingIntervalMs: 10_000,
    }),
  };
  return {
    ...ids,
    generation: 1,
    image: BENCH.image,
    command: [],
    env,
    machineName: 'placed-by-kube-scheduler',
    gpuCount: 1,
    gpuProduct: BENCH.gpuProduct,
    vcpuCount: 2,
    memoryInGb: 0,
    ports: [],
    wipeContainerDisk: false,
    loadBalancer: null,
  };
}

/** Runplane's worker pod for `podId`, as the driver builds it, without the hostname placement pinned it to. */
function workerPod(namespace: string, ids: { podId: string; accountId: string; endpointId: string }): V1Pod {
  const extras = {
    interruptible: false,
    containerDiskInGb: 5,
    volumeInGb: 0,
    volumeMountPath: '/workspace',
    dataCenterId: BENCH.dataCenterId,
    networkVolume: null,
    registryAuth: null,
  };
  const settings = {
    namespace,
    nodeSelector: { [NODE_POOL_LABEL]: POOL },
    requestContainerDisk: false,
    terminationGracePeriodSeconds: 0,
  };
  const { pod } = buildWorkloadObjects(workerSpec(ids), extras, settings, `rp-tokens-${newId(12)}`);
  delete pod.spec?.nodeSelector?.[HOSTNAME_LABEL];
  return pod;
}

/** The body of the baseline's pod number `index` (its name: `direct-<index>`). */
export function directPodBody(shape: DirectPodShape, namespace: string): (index: number) => V1Pod {
  const ids = { accountId: newId(), endpointId: newId() };
  return (index) => {
    if (shape === 'minimal') return minimalPod(`direct-${index}`);
    const pod = workerPod(namespace, { ...ids, podId: newId() });
    return { ...pod, metadata: { ...pod.metadata, name: `direct-${index}` } };
  };
}

/** JSON with every object's keys sorted: two objects alike but for key order give the same text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b)))
      : item,
  );
}

/** The parts of a pod's shape the two phases should share: env names, resources, selectors, affinity, tolerations. */
function shapeOf(pod: V1Pod): string {
  const container = pod.spec?.containers[0];
  const selector = Object.keys(pod.spec?.nodeSelector ?? {}).filter((key) => key !== HOSTNAME_LABEL);
  return canonical({
    env: (container?.env ?? []).map((variable) => variable.name),
    resources: container?.resources,
    selector,
    affinity: pod.spec?.affinity,
    tolerations: (pod.spec?.tolerations ?? []).filter((toleration) => toleration.tolerationSeconds === undefined),
    labels: Object.keys(pod.metadata?.labels ?? {}).sort(),
    priorityClassName: pod.spec?.priorityClassName,
  });
}

/** Null when the baseline's worker pod has the shape of the pod Runplane created; else both shapes. */
export function shapeDifference(runplane: V1Pod, namespace: string): string | null {
  const direct = directPodBody('worker', namespace)(0);
  const [ours, theirs] = [shapeOf(runplane), shapeOf(direct)];
  return ours === theirs ? null : `Runplane's pod ${ours}, the baseline's ${theirs}`;
}
