import {
  createTestNamespace,
  kubeTestEnv,
  NODE_POOL_LABEL,
  type NodePoolSpec,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import { gpuPod, type Pod } from './test-pods';

const H100 = 'NVIDIA-H100-80GB-HBM3';
const POOLS: NodePoolSpec[] = [
  {
    name: 'h100',
    dataCenterId: 'EU-RO-1',
    count: 2,
    cpu: '224',
    memory: '2Ti',
    gpu: { type: 'NVIDIA H100 80GB HBM3', count: 8, memoryMiB: 81559 },
  },
];

interface NodeList {
  items: { metadata: { name: string } }[];
}

describe('node pools of different test files', () => {
  const env = kubeTestEnv();
  const [poolA, poolB] = ['pools-spec-a', 'pools-spec-b'] as const;
  let namespace: TestNamespace;

  const nodesOf = async (poolLabel: string): Promise<string[]> =>
    (
      await env.client.get<NodeList>(
        `/api/v1/nodes?labelSelector=${encodeURIComponent(`${NODE_POOL_LABEL}=${poolLabel}`)}`,
      )
    ).items
      .map((node) => node.metadata.name)
      .sort();
  const pod = (name: string): Promise<Pod> => env.client.get<Pod>(`/api/v1/namespaces/${namespace.name}/pods/${name}`);

  beforeAll(async () => {
    namespace = await createTestNamespace('node-pools');
  });

  afterAll(async () => {
    await namespace.delete();
    await removeNodePool(env, poolA);
    await removeNodePool(env, poolB);
  });

  it('gives each pool label its own nodes', async () => {
    const a = await registerNodePools(env, POOLS, { poolLabel: poolA });
    const b = await registerNodePools(env, POOLS, { poolLabel: poolB });
    expect(a).toEqual([`${poolA}-h100-0`, `${poolA}-h100-1`]);
    expect(b).toEqual([`${poolB}-h100-0`, `${poolB}-h100-1`]);
    expect(await nodesOf(poolA)).toEqual(a);
    expect(await nodesOf(poolB)).toEqual(b);
  });

  it('keeps pods on their own pool even when another pool has free GPUs', async () => {
    for (const name of ['a-0', 'a-1', 'a-2']) {
      await env.client.create(
        `/api/v1/namespaces/${namespace.name}/pods`,
        gpuPod(name, { poolLabel: poolA, product: H100, gpus: 8 }),
      );
    }
    const placed = await pollUntil(
      async () => {
        const pods = await Promise.all(['a-0', 'a-1', 'a-2'].map(pod));
        const running = pods.filter((p) => p.status?.phase === 'Running');
        const unschedulable = pods.filter((p) =>
          p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'),
        );
        return running.length === 2 && unschedulable.length === 1 && { running, unschedulable };
      },
      { timeoutMs: 30_000, intervalMs: 100, description: "pool A's two H100 nodes to fill up" },
    );
    expect(placed.running.map((p) => p.spec.nodeName).sort()).toEqual(await nodesOf(poolA));
    // Pool B's two H100 nodes are idle, yet the third pool-A pod waits: the pool label keeps it off them.
    expect(placed.unschedulable[0]!.spec.nodeName).toBeUndefined();
  });

  it("removes one pool's nodes without touching another's", async () => {
    await removeNodePool(env, poolA);
    expect(await nodesOf(poolA)).toEqual([]);
    expect(await nodesOf(poolB)).toEqual([`${poolB}-h100-0`, `${poolB}-h100-1`]);
  });
});
