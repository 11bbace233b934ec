import { createTestNamespace, kubeTestEnv, pollUntil, TcpProxy, type TestNamespace } from '@runplane/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { createKubeClients, type KubeClients } from './client';
import { watchResource, type ResourceWatch } from './informer';
import type { KubeObserver, KubeRequestRecord } from './observer';

/** An observer that keeps what it is told. */
function recordingObserver(): KubeObserver & { requests: KubeRequestRecord[]; restarts: string[] } {
  const requests: KubeRequestRecord[] = [];
  const restarts: string[] = [];
  return {
    requests,
    restarts,
    request: (record) => requests.push(record),
    watchRestart: (resource) => restarts.push(resource),
  };
}

const key = ({ verb, resource, code }: KubeRequestRecord) => `${verb} ${resource} ${code}`;

describe('the Kubernetes clients tell their observer about requests and watch restarts (real apiserver)', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  let proxy: TcpProxy;
  let clients: KubeClients;
  let informer: ResourceWatch<V1ConfigMap> | undefined;
  const observer = recordingObserver();

  beforeAll(async () => {
    namespace = await createTestNamespace('kube-observer');
    proxy = await TcpProxy.start(env.connection.server);
    clients = createKubeClients({ kubeconfig: proxy.kubeconfigVia(env.kubeconfig), qps: 50, burst: 50, observer });
  });

  afterAll(async () => {
    await informer?.stop();
    clients.close();
    await proxy.close();
    await namespace.delete();
  });

  it('records each request with its verb, resource and status code, refusals included', async () => {
    const ns = namespace.name;
    await clients.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
    await expect(
      clients.core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } }),
    ).rejects.toMatchObject({ code: 409 });
    await clients.createJson(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'b' },
    });
    await clients.core.readNamespacedConfigMap({ name: 'a', namespace: ns });
    await expect(clients.core.readNamespacedConfigMap({ name: 'missing', namespace: ns })).rejects.toMatchObject({
      code: 404,
    });
    await clients.core.listNamespacedConfigMap({ namespace: ns });
    await clients.core.deleteNamespacedConfigMap({ name: 'b', namespace: ns });

    expect(observer.requests.map(key)).toEqual([
      'create configmaps 201',
      'create configmaps 409',
      'create configmaps 201',
      'get configmaps 200',
      'get configmaps 404',
      'list configmaps 200',
      'delete configmaps 200',
    ]);
  });

  it('counts an informer restart after its connection is cut, and its watch requests', async () => {
    informer = watchResource<V1ConfigMap>({
      watch: clients.watch,
      path: `/api/v1/namespaces/${namespace.name}/configmaps`,
      list: (query) => clients.core.listNamespacedConfigMap({ namespace: namespace.name, ...query }),
      backoff: { initialMs: 50, maxMs: 400 },
    });
    await informer.synced;
    expect(observer.restarts).toEqual([]);
    proxy.cut();
    // Two restarts: the first one's list failed, the apiserver being unreachable.
    await pollUntil(() => observer.restarts.length >= 2, { timeoutMs: 15_000, description: 'watch restarts' });
    proxy.restore();
    await pollUntil(() => informer?.hasSynced() === true && observer.requests.some((r) => r.verb === 'watch'), {
      timeoutMs: 15_000,
      description: 'a watch request recorded',
    });
    expect(new Set(observer.restarts)).toEqual(new Set(['configmaps']));
    expect(observer.restarts.length).toBe(informer.restarts);
    const watches = observer.requests.filter((r) => r.verb === 'watch');
    expect(watches.every((r) => r.resource === 'configmaps' && ['200', 'error'].includes(r.code))).toBe(true);
    // The cut watch and the re-watch refused during the outage ended without an answer.
    expect(watches.filter((r) => r.code === 'error').length).toBeGreaterThanOrEqual(2);
  });
});
