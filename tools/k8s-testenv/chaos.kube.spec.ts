import {
  createTestNamespace,
  KWOK_NODE_NOT_READY_LABEL,
  KWOK_POD_FAILED_LABEL,
  kubeTestEnv,
  NODE_POOL_LABEL,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';

const POOL = 'chaos-spec';

interface Condition {
  type: string;
  status: string;
  reason?: string;
}

describe('failure injection through kwok chaos stages', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  let node: string;

  beforeAll(async () => {
    namespace = await createTestNamespace('chaos');
    [node] = (await registerNodePools(
      env,
      [{ name: 'cpu', dataCenterId: 'US-TX-3', count: 1, cpu: '8', memory: '32Gi' }],
      { poolLabel: POOL },
    )) as [string];
  });

  afterAll(async () => {
    await namespace.delete();
    await removeNodePool(env, POOL);
  });

  it('fails the containers of a running pod labelled for it, with the annotated exit code', async () => {
    const podPath = `/api/v1/namespaces/${namespace.name}/pods/worker`;
    await env.client.create(`/api/v1/namespaces/${namespace.name}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'worker' },
      spec: { nodeSelector: { [NODE_POOL_LABEL]: POOL }, containers: [{ name: 'main', image: 'runpod/base:0.6.2' }] },
    });
    type Pod = { status?: { phase?: string; containerStatuses?: { state: { terminated?: { exitCode: number } } }[] } };
    await pollUntil(async () => (await env.client.get<Pod>(podPath)).status?.phase === 'Running', {
      timeoutMs: 30_000,
      intervalMs: 100,
    });

    await env.client.patch(podPath, {
      metadata: {
        labels: { [KWOK_POD_FAILED_LABEL]: 'true' },
        annotations: { [`${KWOK_POD_FAILED_LABEL}/exit-code`]: '137' },
      },
    });
    const failed = await pollUntil(
      async () => {
        const pod = await env.client.get<Pod>(podPath);
        return pod.status?.phase === 'Failed' && pod;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the pod to fail' },
    );
    expect(failed.status?.containerStatuses?.[0]?.state.terminated?.exitCode).toBe(137);
  });

  it('reports a node labelled for it NotReady, and Ready again once the label is gone', async () => {
    const ready = async (): Promise<Condition | undefined> =>
      (await env.client.get<{ status: { conditions: Condition[] } }>(`/api/v1/nodes/${node}`)).status.conditions.find(
        (c) => c.type === 'Ready',
      );

    await env.client.patch(`/api/v1/nodes/${node}`, { metadata: { labels: { [KWOK_NODE_NOT_READY_LABEL]: 'true' } } });
    const lost = await pollUntil(
      async () => {
        const condition = await ready();
        return condition?.status === 'False' && condition;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the node to turn NotReady' },
    );
    expect(lost.reason).toBe('nodeFailed');

    await env.client.patch(`/api/v1/nodes/${node}`, { metadata: { labels: { [KWOK_NODE_NOT_READY_LABEL]: null } } });
    await pollUntil(async () => (await ready())?.status === 'True', {
      timeoutMs: 30_000,
      intervalMs: 100,
      description: 'the node to be Ready again',
    });
  });
});
