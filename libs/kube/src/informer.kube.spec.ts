import { createTestNamespace, kubeTestEnv, pollUntil, TcpProxy, type TestNamespace } from '@runplane/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { createKubeClients, type KubeClients } from './client';
import { watchResource, type ResourceWatch } from './informer';

describe('watchResource against a real apiserver', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  let direct: KubeClients;
  let proxy: TcpProxy;
  let viaProxy: KubeClients;
  let informer: ResourceWatch<V1ConfigMap> | undefined;
  const events: string[] = [];
  const errors: unknown[] = [];

  const create = (name: string, labels: Record<string, string>, data: Record<string, string> = {}) =>
    direct.core.createNamespacedConfigMap({ namespace: namespace.name, body: { metadata: { name, labels }, data } });
  const saw = (event: string) =>
    pollUntil(() => events.includes(event), { timeoutMs: 15_000, description: `event "${event}"` });

  beforeAll(async () => {
    namespace = await createTestNamespace('kube-informer');
    direct = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 50, burst: 50 });
    proxy = await TcpProxy.start(env.connection.server);
    viaProxy = createKubeClients({
      kubeconfig: proxy.kubeconfigVia(env.kubeconfig),
      qps: 50,
      burst: 50,
    });
  });

  afterAll(async () => {
    await informer?.stop();
    viaProxy.close();
    direct.close();
    await proxy.close();
    await namespace.delete();
  });

  it('lists first, then sees add, update and delete of the selected objects only', async () => {
    await create('before', { app: 'watched' }, { v: '0' });
    await create('other', { app: 'ignored' });
    informer = watchResource<V1ConfigMap>({
      watch: viaProxy.watch,
      path: `/api/v1/namespaces/${namespace.name}/configmaps`,
      labelSelector: 'app=watched',
      list: (query) => viaProxy.core.listNamespacedConfigMap({ namespace: namespace.name, ...query }),
      onAdd: (o) => events.push(`add ${o.metadata?.name}`),
      onUpdate: (o) => events.push(`update ${o.metadata?.name} ${o.data?.['v']}`),
      onDelete: (o) => events.push(`delete ${o.metadata?.name}`),
      onError: (error) => errors.push(error),
      backoff: { initialMs: 50, maxMs: 400 },
    });
    await informer.synced;
    expect(events).toEqual(['add before']);

    await create('live', { app: 'watched' }, { v: '1' });
    await saw('add live');
    await direct.core.replaceNamespacedConfigMap({
      name: 'live',
      namespace: namespace.name,
      body: { metadata: { name: 'live', labels: { app: 'watched' } }, data: { v: '2' } },
    });
    await saw('update live 2');
    await direct.core.deleteNamespacedConfigMap({ name: 'before', namespace: namespace.name });
    await saw('delete before');
    expect(events).not.toContain('add other');
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['live']);
  });

  it('restarts after the connection is cut and refused, and catches up on what changed meanwhile', async () => {
    if (!informer) throw new Error('the first test starts the informer');
    proxy.cut();
    await pollUntil(() => errors.length >= 2, {
      timeoutMs: 15_000,
      description: 'failed restarts while the apiserver is unreachable',
    });
    // Changes the informer cannot see yet.
    await create('during-outage', { app: 'watched' });
    await direct.core.deleteNamespacedConfigMap({ name: 'live', namespace: namespace.name });
    proxy.restore();
    await saw('add during-outage');
    await saw('delete live');
    expect(informer.restarts).toBeGreaterThanOrEqual(2);
    await create('after', { app: 'watched' });
    await saw('add after');
    expect(
      informer
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
    ).toEqual(['after', 'during-outage']);
  });
});
