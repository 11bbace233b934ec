import {
  createTestNamespace,
  GPU_PRODUCT_LABEL,
  GPU_RESOURCE,
  KUBE_TEST_VERSIONS,
  kubeTestEnv,
  loadNodePools,
  NODE_POOL_LABEL,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import { gpuPod, type Pod } from './test-pods';

interface Node {
  metadata: { name: string; labels: Record<string, string> };
  spec: { taints?: { key: string; effect: string; value?: string }[] };
  status: {
    capacity: Record<string, string>;
    allocatable: Record<string, string>;
    conditions?: { type: string; status: string }[];
  };
}

const POOL = 'control-plane-spec';
const H100 = 'NVIDIA-H100-80GB-HBM3';

describe('Kubernetes test environment', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  let nodes: string[];

  beforeAll(async () => {
    namespace = await createTestNamespace('control-plane');
    nodes = await registerNodePools(env, loadNodePools(), { poolLabel: POOL });
  });

  afterAll(async () => {
    await namespace.delete();
    await removeNodePool(env, POOL);
  });

  it('answers /readyz and /version with the pinned Kubernetes version', async () => {
    expect(await env.client.text('/readyz')).toBe('ok');
    const version = await env.client.get<{ gitVersion: string; major: string; minor: string }>('/version');
    expect(version).toMatchObject({ gitVersion: KUBE_TEST_VERSIONS.kubernetes, major: '1', minor: '34' });
  });

  it('registers kwok GPU nodes that become Ready with GFD labels, GPU capacity and the GPU taint', async () => {
    expect(nodes).toHaveLength(4 + 8 + 2);
    const h100 = await env.client.get<Node>(`/api/v1/nodes/${POOL}-h100-0`);
    expect(h100.status.conditions).toContainEqual(expect.objectContaining({ type: 'Ready', status: 'True' }));
    expect(h100.metadata.labels).toMatchObject({
      type: 'kwok',
      [NODE_POOL_LABEL]: POOL,
      [GPU_PRODUCT_LABEL]: H100,
      'nvidia.com/gpu.count': '8',
      'nvidia.com/gpu.memory': '81559',
      'topology.kubernetes.io/region': 'EU-RO-1',
      'topology.kubernetes.io/zone': 'EU-RO-1',
    });
    expect(h100.status.capacity).toMatchObject({ [GPU_RESOURCE]: '8', cpu: '224', memory: '2Ti', pods: '110' });
    expect(h100.status.allocatable).toMatchObject({ [GPU_RESOURCE]: '8' });
    expect(h100.spec.taints).toEqual([{ key: GPU_RESOURCE, effect: 'NoSchedule' }]);

    const rtx = await env.client.get<Node>(`/api/v1/nodes/${POOL}-rtx4090-7`);
    expect(rtx.metadata.labels).toMatchObject({
      [GPU_PRODUCT_LABEL]: 'NVIDIA-GeForce-RTX-4090',
      'topology.kubernetes.io/region': 'US-TX-3',
    });
    const cpu = await env.client.get<Node>(`/api/v1/nodes/${POOL}-cpu-1`);
    expect(cpu.metadata.labels[GPU_PRODUCT_LABEL]).toBeUndefined();
    expect(cpu.status.capacity[GPU_RESOURCE]).toBeUndefined();
    expect(cpu.spec.taints ?? []).toEqual([]);
  });

  it('binds an 8-GPU H100 pod to an H100 node through kube-scheduler, and kwok runs it', async () => {
    const pod = gpuPod('train-8x-h100', { poolLabel: POOL, product: H100, gpus: 8 });
    await env.client.create(`/api/v1/namespaces/${namespace.name}/pods`, pod);
    const running = await pollUntil(
      async () => {
        const current = await env.client.get<Pod>(`/api/v1/namespaces/${namespace.name}/pods/train-8x-h100`);
        return current.status?.phase === 'Running' && current;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the H100 pod to run' },
    );
    expect(running.spec.nodeName).toMatch(new RegExp(`^${POOL}-h100-\\d$`));
    expect(running.status?.conditions).toContainEqual(
      expect.objectContaining({ type: 'PodScheduled', status: 'True' }),
    );
    expect(running.status?.podIP).toMatch(/^10\.244\./);
  });

  it('leaves a pod that fits no node Pending as Unschedulable', async () => {
    const pod = gpuPod('too-many-gpus', { poolLabel: POOL, product: H100, gpus: 16 });
    await env.client.create(`/api/v1/namespaces/${namespace.name}/pods`, pod);
    const pending = await pollUntil(
      async () => {
        const current = await env.client.get<Pod>(`/api/v1/namespaces/${namespace.name}/pods/too-many-gpus`);
        const scheduled = current.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
        return scheduled?.status === 'False' && current;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the scheduler to give up on the 16-GPU pod' },
    );
    expect(pending.status?.phase).toBe('Pending');
    expect(pending.spec.nodeName).toBeUndefined();
    const scheduled = pending.status?.conditions?.find((condition) => condition.type === 'PodScheduled');
    expect(scheduled).toMatchObject({ reason: 'Unschedulable' });
    expect(scheduled?.message).toContain('Insufficient nvidia.com/gpu');
  });
});
