import { randomBytes } from 'node:crypto';
import { createKubeClients, type KubeClients, LABELS, MANAGED_SELECTOR, type V1Pod } from '@runplane/kube';
import {
  createTestNamespace,
  kubeTestEnv,
  type KubeTestEnv,
  NODE_POOL_LABEL,
  type NodePoolSpec,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import { type PlatformHarness, type PlatformOptions, startPlatform } from './harness';

/** GPU types of the test pools (catalog ids) and their GFD products. */
export const H100 = 'NVIDIA H100 80GB HBM3';
export const RTX = 'NVIDIA GeForce RTX 4090';

/** `count` nodes of `gpus` H100s each. */
export function h100Pool(count: number, gpus: number): NodePoolSpec {
  return {
    name: 'h100',
    dataCenterId: 'EU-RO-1',
    count,
    cpu: '224',
    memory: '2Ti',
    gpu: { type: H100, count: gpus, memoryMiB: 81559 },
  };
}

/** One node of two H100s (the pool the preemption, Pod and chart RBAC specs place on). */
export const H100_PAIR_POOL = h100Pool(1, 2);

/** `count` nodes of one RTX 4090 each. */
export function rtxPool(count: number): NodePoolSpec {
  return {
    name: 'rtx4090',
    dataCenterId: 'EU-RO-1',
    count,
    cpu: '32',
    memory: '128Gi',
    gpu: { type: RTX, count: 1, memoryMiB: 24564 },
  };
}

/** A platform whose scheduler runs the kubernetes driver on this file's namespace and kwok node pool. */
export interface KubePlatform {
  p: PlatformHarness;
  env: KubeTestEnv;
  namespace: string;
  pool: string;
  nodes: string[];
  /** Clients for the test's own reads and writes. */
  kube: KubeClients;
  /** Scheduler environment of this platform (for a second scheduler instance). */
  schedulerEnv: Record<string, string>;
  /** Runplane's objects in the namespace by kind, as `kind/name` sorted. */
  objects(): Promise<string[]>;
  pod(podId: string): Promise<V1Pod | undefined>;
  close(): Promise<void>;
}

/** The scheduler environment of the Kubernetes driver on `namespace` and the `pool` kwok nodes. */
function kubeSchedulerEnv(env: KubeTestEnv, namespace: string, pool: string): Record<string, string> {
  return {
    SCHEDULER_DRIVER: 'kubernetes',
    KUBECONFIG: env.kubeconfigPath,
    KUBE_NAMESPACE: namespace,
    KUBE_NODE_SELECTOR: `${NODE_POOL_LABEL}=${pool}`,
    // kwok nodes report no ephemeral-storage, so a container disk request could never be scheduled.
    KUBE_REQUEST_CONTAINER_DISK: 'false',
    KUBE_QPS: '200',
    KUBE_BURST: '400',
    RUNPLANE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SCHEDULER_STOP_GRACE_MS: '1000',
  };
}

/** Runplane's objects in `namespace` by kind, as `kind/name` sorted. */
async function managedObjects(kube: KubeClients, namespace: string): Promise<string[]> {
  const query = { namespace, labelSelector: MANAGED_SELECTOR };
  const [pods, services, claims, secrets] = await Promise.all([
    kube.core.listNamespacedPod(query),
    kube.core.listNamespacedService(query),
    kube.core.listNamespacedPersistentVolumeClaim(query),
    kube.core.listNamespacedSecret(query),
  ]);
  return [
    ...pods.items.map((o) => `pod/${o.metadata?.name}`),
    ...services.items.map((o) => `service/${o.metadata?.name}`),
    ...claims.items.map((o) => `pvc/${o.metadata?.name}`),
    ...secrets.items.map((o) => `secret/${o.metadata?.name}`),
  ].sort();
}

/** Starts gateway (+ job-router), a kubernetes-driver scheduler, a namespace and the file's kwok nodes. */
export async function startKubePlatform(
  label: string,
  pools: NodePoolSpec[],
  options: PlatformOptions = {},
): Promise<KubePlatform> {
  const env = kubeTestEnv();
  const ns: TestNamespace = await createTestNamespace(label, env);
  const nodes = await registerNodePools(env, pools, { poolLabel: label });
  const schedulerEnv = { ...kubeSchedulerEnv(env, ns.name, label), ...options.scheduler };
  const p = await startPlatform(label, { ...options, scheduler: schedulerEnv });
  const kube = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 100, burst: 200 });
  const namespace = ns.name;
  await pollUntil(async () => (await p.db.machine.count({ where: { ready: true } })) === nodes.length || undefined, {
    timeoutMs: 30_000,
    description: 'the scheduler to mirror the kwok nodes',
  });
  return {
    ...{ p, env, namespace, pool: label, nodes, kube, schedulerEnv },
    objects: () => managedObjects(kube, namespace),
    async pod(podId) {
      const list = await kube.core.listNamespacedPod({ namespace, labelSelector: `${LABELS.podId}=${podId}` });
      return list.items[0];
    },
    async close() {
      await p.close();
      kube.close();
      await ns.delete();
      await removeNodePool(env, label);
    },
  };
}
