import {
  createTestNamespace,
  kubeTestEnv,
  NODE_POOL_LABEL,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import type { V1Pod } from '@kubernetes/client-node';
import { buildPriorityClasses } from './builders/priority-classes';
import { buildPullSecret } from './builders/pull-secret';
import { buildHttpService, buildPortService } from './builders/port-service';
import { buildVolumeClaim } from './builders/volume-claim';
import { buildWorkloadPod, type WorkloadPodInput } from './builders/workload-pod';
import { createKubeClients, type KubeClients } from './client';
import { watchResource, type ResourceWatch } from './informer';
import { LABELS } from './labels';
import { applyObject, strategicMergePatchOptions } from './patch';
import { readNodeMachine } from './readers/node-machine';
import { readPodStatus, type ObservedPodStatus } from './readers/pod-status';
import { readPublishedPorts } from './readers/port-mappings';

const POOL = 'kube-builders';
const H100 = 'NVIDIA-H100-80GB-HBM3';

describe('builders produce objects the real apiserver accepts and kube-scheduler places', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  let clients: KubeClients;
  let pods: ResourceWatch<V1Pod>;
  /** Every status each pod was seen in, in order. */
  const history = new Map<string, ObservedPodStatus[]>();

  const workload = (podId: string, overrides: Partial<WorkloadPodInput> = {}): V1Pod =>
    buildWorkloadPod({
      name: `rp-${podId}`,
      namespace: namespace.name,
      podId,
      accountId: 'acct1',
      kind: 'pod',
      image: 'runpod/pytorch:2.4.0',
      gpu: { product: H100, count: 8 },
      vcpuCount: 16,
      memoryInGb: 64,
      // The test environment's kwok nodes report no ephemeral-storage capacity, so pods that must be scheduled
      // request none (the 'fully loaded' pod below shows a disk request is accepted).
      containerDiskInGb: 0,
      dataCenterIds: ['EU-RO-1'],
      nodeSelector: { [NODE_POOL_LABEL]: POOL },
      interruptible: false,
      ...overrides,
    });
  const create = (pod: V1Pod) => clients.core.createNamespacedPod({ namespace: namespace.name, body: pod });
  const statusOf = (podId: string) =>
    pollUntil(() => history.get(podId)?.at(-1), { timeoutMs: 15_000, description: `a status of ${podId}` });
  const until = (podId: string, what: string, test: (s: ObservedPodStatus) => boolean) =>
    pollUntil(() => history.get(podId)?.find(test), { timeoutMs: 30_000, description: `${podId} ${what}` });

  beforeAll(async () => {
    namespace = await createTestNamespace('kube-builders');
    clients = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 50, burst: 50 });
    await registerNodePools(
      env,
      [
        {
          name: 'h100',
          dataCenterId: 'EU-RO-1',
          count: 1,
          cpu: '224',
          memory: '2Ti',
          gpu: { type: 'NVIDIA H100 80GB HBM3', count: 8, memoryMiB: 81559 },
        },
      ],
      { poolLabel: POOL },
    );
    for (const priorityClass of buildPriorityClasses())
      await applyObject(clients.objects, priorityClass, 'runplane-tests');
    pods = watchResource<V1Pod>({
      watch: clients.watch,
      path: `/api/v1/namespaces/${namespace.name}/pods`,
      labelSelector: LABELS.podId,
      list: (query) => clients.core.listNamespacedPod({ namespace: namespace.name, ...query }),
      onAdd: (pod) => record(pod),
      onUpdate: (pod) => record(pod),
    });
    const record = (pod: V1Pod): void => {
      const podId = pod.metadata?.labels?.[LABELS.podId] ?? '';
      history.set(podId, [...(history.get(podId) ?? []), readPodStatus(pod)]);
    };
    await pods.synced;
  });

  afterAll(async () => {
    await pods.stop();
    clients.close();
    await namespace.delete();
    await removeNodePool(env, POOL);
  });

  it('creates the PriorityClasses with their values and preemption policies', async () => {
    const classes = await clients.scheduling.listPriorityClass({
      labelSelector: 'app.kubernetes.io/managed-by=runplane',
    });
    const byName = Object.fromEntries(classes.items.map((c) => [c.metadata?.name, [c.value, c.preemptionPolicy]]));
    expect(byName).toMatchObject({
      'runplane-interruptible': [-100, 'Never'],
      'runplane-on-demand': [1000, 'PreemptLowerPriority'],
    });
  });

  it('creates a dockerconfigjson pull secret and a ReadWriteMany volume claim', async () => {
    const secret = buildPullSecret({
      name: 'rp-auth-r1',
      namespace: namespace.name,
      accountId: 'acct1',
      registryAuthId: 'r1',
      username: 'bob',
      password: 'pw',
      image: 'ghcr.io/bob/app:1',
    });
    const storedSecret = await clients.core.createNamespacedSecret({ namespace: namespace.name, body: secret });
    expect(storedSecret.type).toBe('kubernetes.io/dockerconfigjson');
    expect(storedSecret.data).toEqual(secret.data);

    const claim = buildVolumeClaim({
      name: 'rp-vol-v1',
      namespace: namespace.name,
      accountId: 'acct1',
      volumeId: 'v1',
      sizeGb: 50,
      storageClassName: 'runplane-rwx',
    });
    const storedClaim = await clients.core.createNamespacedPersistentVolumeClaim({
      namespace: namespace.name,
      body: claim,
    });
    expect(storedClaim.spec).toMatchObject({
      accessModes: ['ReadWriteMany'],
      storageClassName: 'runplane-rwx',
      resources: { requests: { storage: '50Gi' } },
    });
  });

  it('accepts a fully loaded pod (env from a secret, ports, claim, pull secret, grace period)', async () => {
    const pod = workload('full', {
      kind: 'worker',
      endpointId: 'ep1',
      env: { A: '1' },
      secretEnv: [{ name: 'TOKEN', secretName: 'rp-auth-r1', key: '.dockerconfigjson' }],
      ports: ['8888/http', '22/tcp', '53/udp'],
      volume: { mountPath: '/runpod-volume', claimName: 'rp-vol-v1' },
      imagePullSecrets: ['rp-auth-r1'],
      terminationGracePeriodSeconds: 5,
      generation: 2,
      containerDiskInGb: 20,
    });
    const stored = await create(pod);
    expect(stored.spec?.priorityClassName).toBe('runplane-on-demand');
    expect(stored.spec?.priority).toBe(1000);
    expect(stored.spec?.containers[0]?.resources?.limits).toEqual({
      cpu: '16',
      memory: '64Gi',
      'ephemeral-storage': '20Gi',
      'nvidia.com/gpu': '8',
    });
    expect(stored.metadata?.labels).toEqual(pod.metadata?.labels);
    await clients.core.deleteNamespacedPod({ name: 'rp-full', namespace: namespace.name, gracePeriodSeconds: 0 });
  });

  it('runs a GPU pod on the H100 node and publishes its tcp ports on a NodePort', async () => {
    await create(
      workload('spot', {
        interruptible: true,
        ports: ['8888/http', '22/tcp'],
        volume: { mountPath: '/workspace', scratchSizeGb: 10 },
      }),
    );
    const running = await until('spot', 'running', (s) => s.phase === 'RUNNING');
    expect(running.nodeName).toBe(`${POOL}-h100-0`);
    expect(running.startedAt).toBeInstanceOf(Date);

    const service = buildPortService({
      name: 'rp-spot-ports',
      namespace: namespace.name,
      podId: 'spot',
      accountId: 'acct1',
      ports: ['8888/http', '22/tcp'],
    });
    const http = buildHttpService({
      name: 'rp-spot-http',
      namespace: namespace.name,
      podId: 'spot',
      accountId: 'acct1',
      ports: ['8888/http', '22/tcp'],
    });
    if (!service || !http) throw new Error('expected both services');
    const storedService = await clients.core.createNamespacedService({ namespace: namespace.name, body: service });
    await clients.core.createNamespacedService({ namespace: namespace.name, body: http });
    // kwok nodes have no addresses; give this test's node the ones a cloud node reports.
    await clients.core.patchNodeStatus(
      {
        name: `${POOL}-h100-0`,
        body: {
          status: {
            addresses: [
              { type: 'InternalIP', address: '10.0.0.10' },
              { type: 'ExternalIP', address: '203.0.113.10' },
            ],
          },
        },
      },
      strategicMergePatchOptions(),
    );
    const node = await clients.core.readNode({ name: `${POOL}-h100-0` });
    const published = readPublishedPorts(storedService, node);
    expect(Object.keys(published.portMappings ?? {})).toEqual(['22']);
    expect(published.portMappings?.['22']).toBeGreaterThanOrEqual(30000);
    expect(published.publicIp).toBe('203.0.113.10');

    expect(readNodeMachine(node)).toMatchObject({
      gpuProduct: H100,
      gpuCount: 8,
      gpuMemoryMiB: 81559,
      gpuAllocatable: 8,
      region: 'EU-RO-1',
      ready: true,
      schedulable: true,
    });
  });

  it('reports a pod that fits no node as unschedulable', async () => {
    await create(workload('huge', { gpu: { product: H100, count: 16 } }));
    const pending = await until('huge', 'unschedulable', (s) => s.unschedulable !== null);
    expect(pending.phase).toBe('CREATING');
    expect(pending.unschedulable?.reason).toBe('Unschedulable');
    expect(pending.unschedulable?.message).toContain('nvidia.com/gpu');
    await clients.core.deleteNamespacedPod({ name: 'rp-huge', namespace: namespace.name, gracePeriodSeconds: 0 });
  });

  it('an on-demand pod preempts the interruptible one, which reads as preempted', async () => {
    await statusOf('spot');
    await create(workload('ondemand'));
    const victim = await until('spot', 'preempted', (s) => s.preempted);
    expect(victim.message).toMatch(/preempt/i);
    const winner = await until('ondemand', 'running', (s) => s.phase === 'RUNNING');
    expect(winner.nodeName).toBe(`${POOL}-h100-0`);
  });
});
