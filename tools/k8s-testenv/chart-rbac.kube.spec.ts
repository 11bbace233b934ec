// The Helm chart's least-privilege RBAC is enough for the scheduler: the chart's ServiceAccounts, (Cluster)Roles,
// bindings and PriorityClasses are applied to the test cluster, and a scheduler running as that ServiceAccount (with
// the chart's scheduler env) mirrors nodes, wins the Lease, creates and deletes a Pod's objects, and is refused
// anything cluster-wide beyond reading nodes and pods.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { LogLine } from '@runplane/contracts';
import { type KubeClients, MANAGED_SELECTOR } from '@runplane/kube';
import { type KubeTestClient, kwokContainerLogFile, pollUntil, type TestNamespace } from '@runplane/testing';
import { ChartFixture, statusOf } from './chart-identity';
import { startAsChartScheduler } from './chart-platform';
import type { PlatformHarness } from '../../apps/scheduler/test/harness';
import { H100, H100_PAIR_POOL } from '../../apps/scheduler/test/kube-platform';

const POOL = 'sched-chart-rbac';

describe("the Helm chart's scheduler RBAC on a real apiserver", () => {
  const chart = new ChartFixture();
  const env = chart.env;
  let ns: TestNamespace;
  let asScheduler: KubeTestClient;
  let p: PlatformHarness;
  let admin: KubeClients;

  beforeAll(async () => {
    ns = await chart.namespace('chart-rbac');
    await chart.nodePools(POOL, [H100_PAIR_POOL]);
    const identity = await chart.applyIdentity({ release: ns.name, pool: POOL });
    const login = await chart.schedulerLogin();
    asScheduler = login.client;
    p = await startAsChartScheduler(POOL, identity.schedulerEnv, login.kubeconfigPath);
    admin = chart.admin();
  }, 240_000);

  afterAll(async () => {
    await p?.close();
    await chart.close();
  }, 120_000);

  const objects = async (): Promise<string[]> => {
    const query = { namespace: ns.name, labelSelector: MANAGED_SELECTOR };
    const [pods, services, claims] = await Promise.all([
      admin.core.listNamespacedPod(query),
      admin.core.listNamespacedService(query),
      admin.core.listNamespacedPersistentVolumeClaim(query),
    ]);
    return [
      ...pods.items.map((o) => `pod/${o.metadata?.name}`),
      ...services.items.map((o) => `service/${o.metadata?.name}`),
      ...claims.items.map((o) => `pvc/${o.metadata?.name}`),
    ].sort();
  };

  it('mirrors the nodes, leads through the Lease, and creates then deletes every object of a Pod', async () => {
    await pollUntil(async () => (await p.db.machine.count({ where: { ready: true } })) === 1 || undefined, {
      timeoutMs: 30_000,
      description: 'the node to be mirrored',
    });
    const created = await p.v1('POST', '/pods', {
      name: 'rbac',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [H100],
      gpuCount: 1,
      volumeInGb: 10,
      ports: ['8888/http', '22/tcp'],
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const expected = [`pod/rp-${id}`, `pvc/rp-${id}-volume`, `service/rp-${id}-http`, `service/rp-${id}-ports`];
    await pollUntil(async () => JSON.stringify(await objects()) === JSON.stringify(expected) || undefined, {
      timeoutMs: 30_000,
      description: "the Pod's objects",
    });
    const lease = await env.client.get<{ spec: { holderIdentity: string } }>(
      `/apis/coordination.k8s.io/v1/namespaces/${ns.name}/leases/runplane-scheduler`,
    );
    expect(lease.spec.holderIdentity).toEqual(expect.any(String));
    expect((await p.v1('DELETE', `/pods/${id}`)).status).toBeLessThan(300);
    await pollUntil(async () => (await objects()).length === 0 || undefined, {
      timeoutMs: 30_000,
      description: "the Pod's objects to be deleted",
    });
  });

  it("creates a serverless worker's pod and token Secret, and deletes both with the endpoint", async () => {
    const template = await p.v1('POST', '/templates', {
      name: 'rbac-echo',
      imageName: 'runplane/echo-worker:dev',
      isServerless: true,
      containerDiskInGb: 5,
    });
    const endpoint = await p.v1('POST', '/endpoints', {
      name: 'rbac',
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: [H100],
      gpuCount: 1,
      workersMin: 1,
      workersMax: 1,
    });
    expect(endpoint.status).toBe(200);
    const endpointId = (endpoint.body as { id: string }).id;
    const query = { namespace: ns.name, labelSelector: `${MANAGED_SELECTOR},runplane.io/token-secret=true` };
    const workerObjects = async (): Promise<number[]> => [
      (
        await admin.core.listNamespacedPod({
          namespace: ns.name,
          labelSelector: `runplane.io/endpoint-id=${endpointId}`,
        })
      ).items.length,
      (await admin.core.listNamespacedSecret(query)).items.length,
    ];
    await pollUntil(async () => JSON.stringify(await workerObjects()) === '[1,1]' || undefined, {
      timeoutMs: 30_000,
      description: "the worker's pod and token Secret",
    });
    expect((await p.v1('DELETE', `/endpoints/${endpointId}`)).status).toBeLessThan(300);
    await pollUntil(async () => JSON.stringify(await workerObjects()) === '[0,0]' || undefined, {
      timeoutMs: 30_000,
      description: "the worker's pod and token Secret to be deleted",
    });
  });

  it("streams a Pod's container log and its Events as the scheduler's ServiceAccount", async () => {
    const created = await p.v1('POST', '/pods', {
      name: 'rbac-logs',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [H100],
    });
    const id = (created.body as { id: string }).id;
    await pollUntil(
      async () =>
        (await admin.core.readNamespacedPod({ name: `rp-${id}`, namespace: ns.name }).catch(() => null))?.status
          ?.phase === 'Running',
      { timeoutMs: 30_000, description: "the Pod's kube pod running" },
    );
    const marker = `rbac-log-${randomBytes(4).toString('hex')}`;
    const lines: LogLine[] = [];
    const errors: Error[] = [];
    const follower = p.scheduler().driver.followLogs({
      podId: id,
      tail: 10,
      since: null,
      after: null,
      sources: ['container', 'system'],
      onLines: (batch) => lines.push(...batch),
      onError: (error) => errors.push(error),
    });
    try {
      appendFileSync(
        kwokContainerLogFile(path.dirname(env.kubeconfigPath)),
        `${new Date().toISOString()} stdout F ${marker}\n`,
      );
      await pollUntil(() => lines.some((l) => l.source === 'container' && l.line === marker), { timeoutMs: 20_000 });
      await pollUntil(() => lines.some((l) => l.source === 'system' && l.line.startsWith('Scheduled: ')), {
        timeoutMs: 20_000,
      });
      expect(errors).toEqual([]);
    } finally {
      follower.close();
      await p.v1('DELETE', `/pods/${id}`);
    }
  });

  it('is refused PriorityClass writes, Secrets outside its namespace and pod changes elsewhere', async () => {
    const priorityClass = {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: `rbac-${ns.name}` },
      value: 1,
    };
    expect(await statusOf(asScheduler.create('/apis/scheduling.k8s.io/v1/priorityclasses', priorityClass))).toBe(403);
    expect(
      await statusOf(
        asScheduler.patch('/apis/scheduling.k8s.io/v1/priorityclasses/runplane-on-demand', {
          metadata: { labels: { x: 'y' } },
        }),
      ),
    ).toBe(403);
    expect(await statusOf(asScheduler.get('/api/v1/secrets'))).toBe(403);
    expect(await statusOf(asScheduler.get('/api/v1/namespaces/default/secrets'))).toBe(403);
    expect(await statusOf(asScheduler.delete('/api/v1/namespaces/default/pods/anything'))).toBe(403);
    expect(await statusOf(asScheduler.get('/api/v1/pods?limit=1'))).toBe(200);
    expect(await statusOf(asScheduler.get('/api/v1/nodes?limit=1'))).toBe(200);
  });
});
