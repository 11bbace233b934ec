import {
  createTestNamespace,
  kubeTestEnv,
  NODE_POOL_LABEL,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import type { Pod } from './test-pods';

const POOL = 'volumes-spec';

interface Claim {
  spec: { storageClassName?: string; volumeName?: string };
  status?: { phase?: string; capacity?: Record<string, string> };
}

describe('network volumes in the Kubernetes test environment', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  const claimPath = (name: string): string => `/api/v1/namespaces/${namespace.name}/persistentvolumeclaims/${name}`;

  beforeAll(async () => {
    namespace = await createTestNamespace('volumes');
    await registerNodePools(env, [{ name: 'cpu', dataCenterId: 'EU-RO-1', count: 1, cpu: '8', memory: '32Gi' }], {
      poolLabel: POOL,
    });
  });

  afterAll(async () => {
    await namespace.delete();
    await removeNodePool(env, POOL);
  });

  it('binds a ReadWriteMany claim of the default kwok-volume class and mounts it in a running pod', async () => {
    await env.client.create(`/api/v1/namespaces/${namespace.name}/persistentvolumeclaims`, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'models' },
      spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '50Gi' } } },
    });
    const bound = await pollUntil(
      async () => {
        const claim = await env.client.get<Claim>(claimPath('models'));
        return claim.status?.phase === 'Bound' && claim;
      },
      { timeoutMs: 30_000, intervalMs: 100, description: 'the claim to bind' },
    );
    expect(bound.spec.storageClassName).toBe('kwok-volume');
    expect(bound.status?.capacity).toEqual({ storage: '50Gi' });
    const volume = bound.spec.volumeName!;
    expect(
      (await env.client.get<{ status: { phase: string } }>(`/api/v1/persistentvolumes/${volume}`)).status.phase,
    ).toBe('Bound');

    await env.client.create(`/api/v1/namespaces/${namespace.name}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'with-volume' },
      spec: {
        nodeSelector: { [NODE_POOL_LABEL]: POOL },
        containers: [
          { name: 'main', image: 'runpod/base:0.6.2', volumeMounts: [{ name: 'models', mountPath: '/workspace' }] },
        ],
        volumes: [{ name: 'models', persistentVolumeClaim: { claimName: 'models' } }],
      },
    });
    await pollUntil(
      async () =>
        (await env.client.get<Pod>(`/api/v1/namespaces/${namespace.name}/pods/with-volume`)).status?.phase ===
        'Running',
      { timeoutMs: 30_000, intervalMs: 100, description: 'the pod with the volume to run' },
    );

    // No volume binder or protection controller, no protection finalizers: a deleted claim goes at once (its volume stays).
    await env.client.delete(`/api/v1/namespaces/${namespace.name}/pods/with-volume?gracePeriodSeconds=0`);
    await env.client.delete(claimPath('models'));
    await expect(env.client.get(claimPath('models'))).rejects.toMatchObject({ status: 404 });
  });
});
