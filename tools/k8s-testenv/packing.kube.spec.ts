import {
  createTestNamespace,
  kubeTestEnv,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import { gpuPod, type Pod } from './test-pods';

const POOL = 'packing-spec';

describe('kube-scheduler GPU bin-packing', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;

  beforeAll(async () => {
    namespace = await createTestNamespace('packing');
    await registerNodePools(
      env,
      [
        {
          name: 'h100',
          dataCenterId: 'EU-RO-1',
          count: 3,
          cpu: '224',
          memory: '2Ti',
          gpu: { type: 'NVIDIA H100 80GB HBM3', count: 8, memoryMiB: 81559 },
        },
      ],
      { poolLabel: POOL },
    );
  });

  afterAll(async () => {
    await namespace.delete();
    await removeNodePool(env, POOL);
  });

  const placeOneGpuPod = async (name: string): Promise<string> => {
    await env.client.create(
      `/api/v1/namespaces/${namespace.name}/pods`,
      gpuPod(name, { poolLabel: POOL, product: 'NVIDIA-H100-80GB-HBM3', gpus: 1 }),
    );
    return pollUntil(
      async () => (await env.client.get<Pod>(`/api/v1/namespaces/${namespace.name}/pods/${name}`)).spec.nodeName,
      {
        timeoutMs: 30_000,
        intervalMs: 100,
        description: `${name} to be bound`,
      },
    );
  };

  it('puts single-GPU pods on the node that already has GPUs in use, keeping whole nodes free', async () => {
    const first = await placeOneGpuPod('one-gpu-0');
    expect(await placeOneGpuPod('one-gpu-1')).toBe(first);
    expect(await placeOneGpuPod('one-gpu-2')).toBe(first);
  });
});
