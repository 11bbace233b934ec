import { pollUntil, createTestNamespace, kubeTestEnv, TcpProxy, type TestNamespace } from '@runplane/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { createKubeClients, type KubeClients } from './client';
import { isConflict, isNotFound, kubeErrorMessage } from './errors';
import { applyObject, mergePatchOptions } from './patch';
import { RateLimiterClosedError } from './rate-limiter';

const configMap = (namespace: string, name: string, data: Record<string, string>): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data,
});

describe('createKubeClients against a real apiserver', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  let clients: KubeClients;

  beforeAll(async () => {
    namespace = await createTestNamespace('kube-client');
    clients = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 50, burst: 50 });
  });

  afterAll(async () => {
    clients.close();
    await namespace.delete();
  });

  it('loads credentials from a file or from the kubeconfig text and talks to the cluster', async () => {
    const fromText = createKubeClients({ kubeconfig: env.kubeconfig, qps: 5, burst: 5 });
    const ns = await fromText.core.readNamespace({ name: namespace.name });
    expect(ns.metadata?.name).toBe(namespace.name);
    fromText.close();
  });

  it('sends request after request over the connections it opened, not a new TLS connection each', async () => {
    const proxy = await TcpProxy.start(env.connection.server);
    const viaProxy = createKubeClients({ kubeconfig: proxy.kubeconfigVia(env.kubeconfig), qps: 50, burst: 50 });
    try {
      for (let read = 0; read < 20; read += 1)
        expect((await viaProxy.core.readNamespace({ name: namespace.name })).metadata?.name).toBe(namespace.name);
      expect(proxy.connections).toBe(1);
    } finally {
      viaProxy.close();
      await proxy.close();
    }
  });

  it('never lets more than `burst` requests out before the bucket refills (queued calls wait)', async () => {
    // One token every 1000 s: after the burst of 3, the other calls can only wait in the limiter.
    const slow = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 0.001, burst: 3 });
    let answered = 0;
    const calls = Array.from({ length: 5 }, () =>
      slow.core.listNamespacedConfigMap({ namespace: namespace.name }).then(() => (answered += 1)),
    );
    await pollUntil(() => answered === 3, { timeoutMs: 10_000, description: 'the burst of 3 to be answered' });
    expect(slow.limiter.granted).toBe(3);
    expect(slow.limiter.waiting).toBe(2);
    slow.close();
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(rejected).toHaveLength(2);
    for (const r of rejected) expect(r.reason).toBeInstanceOf(RateLimiterClosedError);
    expect(answered).toBe(3);
  });

  it('counts every API call against the shared budget', async () => {
    const before = clients.limiter.granted;
    await clients.core.listNamespacedConfigMap({ namespace: namespace.name });
    await clients.coordination.listNamespacedLease({ namespace: namespace.name });
    await clients.scheduling.listPriorityClass();
    expect(clients.limiter.granted - before).toBe(3);
  });

  it('classifies 404 and 409 from the apiserver and keeps its message', async () => {
    const missing = await clients.core
      .readNamespacedConfigMap({ name: 'nope', namespace: namespace.name })
      .catch((e: unknown) => e);
    expect(isNotFound(missing)).toBe(true);
    expect(kubeErrorMessage(missing)).toBe('configmaps "nope" not found');
    const body = configMap(namespace.name, 'twice', { a: '1' });
    await clients.core.createNamespacedConfigMap({ namespace: namespace.name, body });
    const duplicate = await clients.core
      .createNamespacedConfigMap({ namespace: namespace.name, body })
      .catch((e: unknown) => e);
    expect(isConflict(duplicate)).toBe(true);
    expect(isNotFound(duplicate)).toBe(false);
  });

  it('merge-patches through the rate-limited client', async () => {
    await clients.core.createNamespacedConfigMap({
      namespace: namespace.name,
      body: configMap(namespace.name, 'merge', { a: '1', b: '2' }),
    });
    const before = clients.limiter.granted;
    const patched = await clients.core.patchNamespacedConfigMap(
      { name: 'merge', namespace: namespace.name, body: { data: { b: null, c: '3' } } },
      mergePatchOptions(),
    );
    expect(patched.data).toEqual({ a: '1', c: '3' });
    expect(clients.limiter.granted - before).toBe(1);
  });

  it('server-side applies an object: creates it, then updates only what the manager owns', async () => {
    const created = await applyObject(
      clients.objects,
      configMap(namespace.name, 'applied', { a: '1' }),
      'runplane-test',
    );
    expect(created.data).toEqual({ a: '1' });
    const updated = await applyObject(
      clients.objects,
      configMap(namespace.name, 'applied', { a: '2', b: '3' }),
      'runplane-test',
    );
    expect(updated.data).toEqual({ a: '2', b: '3' });
    expect(updated.metadata?.managedFields?.some((f) => f.manager === 'runplane-test' && f.operation === 'Apply')).toBe(
      true,
    );
  });

  it('creates through the lean JSON create: the object exists, a second create is a 409 with the apiserver message, and it takes limiter tokens', async () => {
    const path = `/api/v1/namespaces/${namespace.name}/configmaps`;
    const granted = clients.limiter.granted;
    await clients.createJson(path, configMap(namespace.name, 'lean', { a: '1' }));
    const read = await clients.core.readNamespacedConfigMap({ name: 'lean', namespace: namespace.name });
    expect(read.data).toEqual({ a: '1' });
    const again = await clients
      .createJson(path, configMap(namespace.name, 'lean', { a: '2' }))
      .catch((error: unknown) => error);
    expect(isConflict(again)).toBe(true);
    expect(kubeErrorMessage(again)).toContain('already exists');
    expect(clients.limiter.granted - granted).toBe(3);
  });
});
