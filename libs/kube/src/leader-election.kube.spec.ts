import { createTestNamespace, kubeTestEnv, pollUntil, type TestNamespace } from '@runplane/testing';
import { createKubeClients, type KubeClients } from './client';
import { LeaderElector } from './leader-election';

describe('LeaderElector against a real apiserver', () => {
  const env = kubeTestEnv();
  let namespace: TestNamespace;
  const opened: KubeClients[] = [];
  const electors: LeaderElector[] = [];
  const events: string[] = [];

  const candidate = (identity: string, lease = 'scheduler'): { elector: LeaderElector; clients: KubeClients } => {
    // Each candidate has its own clients, as separate scheduler replicas would.
    const clients = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 50, burst: 50 });
    const elector = new LeaderElector({
      coordination: clients.coordination,
      name: lease,
      namespace: namespace.name,
      identity,
      leaseDurationMs: 5_000,
      renewMs: 300,
      retryMs: 200,
      onStartedLeading: () => events.push(`${identity} leads`),
      onStoppedLeading: () => events.push(`${identity} stopped`),
    });
    opened.push(clients);
    electors.push(elector);
    return { elector, clients };
  };
  const lease = (name = 'scheduler') => {
    const reader = opened[0];
    if (!reader) throw new Error('no candidate yet');
    return reader.coordination.readNamespacedLease({ name, namespace: namespace.name });
  };

  beforeAll(async () => {
    namespace = await createTestNamespace('kube-leader');
  });

  afterAll(async () => {
    await Promise.all(electors.map((e) => e.stop()));
    for (const clients of opened) clients.close();
    await namespace.delete();
  });

  it('elects exactly one of two candidates and hands over when the leader stops', async () => {
    const a = candidate('replica-a');
    a.elector.start();
    await pollUntil(() => a.elector.isLeader(), { timeoutMs: 10_000, description: 'replica-a to lead' });
    const b = candidate('replica-b');
    b.elector.start();
    // While a renews every 300 ms, b (trying every 200 ms) must not take over: watch a renew twice.
    const versions = new Set<string>();
    await pollUntil(
      async () => {
        const current = await lease();
        expect(current.spec?.holderIdentity).toBe('replica-a');
        versions.add(current.metadata?.resourceVersion ?? '');
        return versions.size >= 3;
      },
      { timeoutMs: 10_000, intervalMs: 50, description: 'replica-a to renew twice' },
    );
    expect(b.elector.isLeader()).toBe(false);

    await a.elector.stop();
    await pollUntil(() => b.elector.isLeader(), { timeoutMs: 10_000, description: 'replica-b to take over' });
    expect(a.elector.isLeader()).toBe(false);
    const handedOver = await lease();
    expect(handedOver.spec).toMatchObject({
      holderIdentity: 'replica-b',
      leaseDurationSeconds: 5,
      leaseTransitions: 1,
    });
    expect(events).toEqual(['replica-a leads', 'replica-a stopped', 'replica-b leads']);
  });

  it('takes over from a leader that vanished without releasing once the lease expires', async () => {
    events.length = 0;
    const c = candidate('replica-c', 'crash');
    c.elector.start();
    await pollUntil(() => c.elector.isLeader(), { timeoutMs: 10_000, description: 'replica-c to lead' });
    // The leader loses the apiserver: every call now fails, so it cannot renew (or release).
    c.clients.close();
    const d = candidate('replica-d', 'crash');
    d.elector.start();
    await pollUntil(() => d.elector.isLeader(), {
      timeoutMs: 15_000,
      description: 'replica-d to take over the expired lease',
    });
    // The cut-off leader stepped down at its renew deadline (default 2/3 of the lease), before the lease expired.
    expect(c.elector.isLeader()).toBe(false);
    expect(events).toEqual(['replica-c leads', 'replica-c stopped', 'replica-d leads']);
    expect((await lease('crash')).spec?.holderIdentity).toBe('replica-d');
  });
});
