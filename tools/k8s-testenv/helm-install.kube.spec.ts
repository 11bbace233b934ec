// `helm install` of the chart in helm/runplane into a fresh namespace of the test cluster, whose controller-manager
// runs Deployments, ReplicaSets, Jobs, PodDisruptionBudgets and the garbage collector while kwok plays kubelet (its
// stages make pods Running and Ready, and complete the pods of Jobs): the migration hook Job runs to completion
// before the services, every Deployment becomes ready, and `helm uninstall` leaves the namespace and the cluster as
// they were before the install.
import { randomBytes } from 'node:crypto';
import { type KubeTestClient, NODE_POOL_LABEL, pollUntil, type TestNamespace } from '@runplane/testing';
import { ChartFixture } from './chart-identity';
import { CHART_DIR, SERVICES } from './helm-chart';
import {
  clusterObjectsOf,
  type HelmCli,
  helmCli,
  type JobWatch,
  namespaceInventory,
  releaseObjects,
  type ReleaseObjects,
  watchJobs,
} from './helm-release';

const POOL = 'helm-install';
const REPLICAS = 2;

interface Deployment {
  metadata: { name: string; creationTimestamp: string };
  spec: { replicas: number };
  status?: { readyReplicas?: number; availableReplicas?: number };
}

interface Budget {
  metadata: { name: string };
  status?: { expectedPods?: number; currentHealthy?: number; disruptionsAllowed?: number };
}

interface List<T> {
  items: T[];
}

/** Values for a cluster without PostgreSQL, Redis or the image: pods never really start, kwok runs them. */
function installValues(): string[] {
  const pool = `${NODE_POOL_LABEL.replace(/\./g, '\\.')}=${POOL}`;
  return [
    'image.repository=registry.invalid/runplane/runplane',
    'image.tag=helm-install-test',
    'database.url=postgresql://runplane@postgres.invalid:5432/runplane',
    'redis.url=redis://redis.invalid:6379',
    `encryptionKey.value=${randomBytes(32).toString('hex')}`,
    `workloads.nodeSelector.${pool}`,
    // The hook Job's pod too stays on this file's own nodes, off other files' pools.
    `migration.nodeSelector.${pool}`,
    // The PriorityClasses are one set per cluster, and other test files apply the chart's own.
    'workloads.createPriorityClasses=false',
    ...SERVICES.flatMap((service) => [
      `services.${service}.replicas=${REPLICAS}`,
      `services.${service}.nodeSelector.${pool}`,
    ]),
  ].flatMap((pair) => ['--set', pair]);
}

/** Each PDB as `<name> <healthy>/<expected> allowed <disruptions>`, which the disruption controller keeps current. */
async function budgetCounts(client: KubeTestClient, namespace: string): Promise<string[]> {
  const list = await client.get<List<Budget>>(`/apis/policy/v1/namespaces/${namespace}/poddisruptionbudgets`);
  return list.items
    .map(
      (b) =>
        `${b.metadata.name} ${b.status?.currentHealthy}/${b.status?.expectedPods} allowed ${b.status?.disruptionsAllowed}`,
    )
    .sort();
}

describe('helm install of the chart on the test cluster', () => {
  const chart = new ChartFixture();
  const env = chart.env;
  // ClusterRole names hold the release and the namespace; a release of its own keeps them apart from other files'.
  const release = `hi-${randomBytes(3).toString('hex')}`;
  const fullname = `${release}-runplane`;
  let ns: TestNamespace;
  let helm: HelmCli;
  let jobs: JobWatch;
  let before: string[];
  let objects: ReleaseObjects;

  const get = <T>(path: string): Promise<T> => env.client.get<T>(path);

  beforeAll(async () => {
    helm = helmCli(env);
    ns = await chart.namespace('helm-install');
    await chart.nodePools(POOL, [{ name: 'cpu', dataCenterId: 'EU-RO-1', count: 2, cpu: '16', memory: '64Gi' }]);
    // Bystanders: a ConfigMap and a running Pod of someone else, which neither the install nor the uninstall touches.
    await env.client.create(`/api/v1/namespaces/${ns.name}/configmaps`, {
      metadata: { name: 'bystander' },
      data: { owner: 'someone else' },
    });
    const pod = {
      metadata: { name: 'bystander' },
      spec: { nodeSelector: { [NODE_POOL_LABEL]: POOL }, containers: [{ name: 'main', image: 'busybox' }] },
    };
    await env.client.create(`/api/v1/namespaces/${ns.name}/pods`, pod);
    await pollUntil(
      async () =>
        (await get<{ status?: { phase?: string } }>(`/api/v1/namespaces/${ns.name}/pods/bystander`)).status?.phase ===
        'Running',
      {
        timeoutMs: 30_000,
        description: 'the bystander pod to run',
      },
    );
    before = await namespaceInventory(env.client, ns.name);
    jobs = await watchJobs(env, ns.name);
  }, 120_000);

  afterAll(async () => {
    jobs?.stop();
    if (helm !== undefined && ns !== undefined)
      await helm.run(['uninstall', release, '--namespace', ns.name, '--ignore-not-found']);
    helm?.close();
    await chart.close();
  }, 120_000);

  /** The namespace's objects other than the pods and ReplicaSets the controllers create. */
  const owned = async (): Promise<string[]> =>
    (await namespaceInventory(env.client, ns.name)).filter(
      (name) => !/^(pods|replicasets)\//.test(name) || name === 'pods/bystander',
    );

  it('helm install --wait runs the migration hook Job to completion first, and its pod goes with it', async () => {
    const installed = await helm.run([
      'install',
      release,
      CHART_DIR,
      '--namespace',
      ns.name,
      '--wait',
      '--timeout',
      '3m',
      ...installValues(),
    ]);
    expect(installed).toEqual({ code: 0, output: expect.stringContaining('STATUS: deployed') });
    // helm deleted the hook once it succeeded: only the watch saw it complete, before any Deployment was created.
    expect(Object.fromEntries(jobs.seen)).toEqual({ [`${fullname}-migrate`]: { completedAt: expect.any(String) } });
    const completedAt = jobs.seen.get(`${fullname}-migrate`)!.completedAt!;
    const deployments = await get<List<Deployment>>(`/apis/apps/v1/namespaces/${ns.name}/deployments`);
    expect(
      deployments.items.filter((d) => d.metadata.creationTimestamp < completedAt).map((d) => d.metadata.name),
    ).toEqual([]);
    const migratePods = `/api/v1/namespaces/${ns.name}/pods?labelSelector=${encodeURIComponent('app.kubernetes.io/component=migrate')}`;
    await pollUntil(async () => (await get<List<unknown>>(migratePods)).items.length === 0, {
      timeoutMs: 30_000,
      description: "the deleted Job's pod to go",
    });
  }, 240_000);

  it('every Deployment reaches its desired replicas, all ready', async () => {
    const deployments = await get<List<Deployment>>(`/apis/apps/v1/namespaces/${ns.name}/deployments`);
    expect(deployments.items.map((d) => d.metadata.name).sort()).toEqual(
      SERVICES.map((service) => `${fullname}-${service}`).sort(),
    );
    for (const deployment of deployments.items) {
      const { name } = deployment.metadata;
      expect({ name, replicas: deployment.spec.replicas, ready: deployment.status?.readyReplicas }).toEqual({
        name,
        replicas: REPLICAS,
        ready: REPLICAS,
      });
    }
  });

  it("creates exactly the release's manifest (PDBs, Services, RBAC, …), its kept hook Secret and helm's record", async () => {
    objects = await releaseObjects(helm, release, ns.name);
    expect(await owned()).toEqual(
      [...before, ...objects.namespaced, ...objects.keptHooks, `secrets/sh.helm.release.v1.${release}.v1`].sort(),
    );
    expect(objects.keptHooks).toEqual([`secrets/${fullname}-config`]);
    expect(objects.namespaced).toEqual(
      expect.arrayContaining([
        ...SERVICES.map((service) => `poddisruptionbudgets/${fullname}-${service}`),
        `services/${fullname}-gateway`,
        `services/${fullname}-job-router`,
      ]),
    );
    // Cluster-wide, only the scheduler's ClusterRole and its binding (the PriorityClasses are off, see installValues).
    expect(await clusterObjectsOf(env.client, release)).toEqual(objects.clusterScoped);
    expect(objects.clusterScoped).toEqual([
      `clusterrolebindings/${fullname}-scheduler-${ns.name}`,
      `clusterroles/${fullname}-scheduler-${ns.name}`,
    ]);
  });

  it("the disruption controller counts each PDB's healthy pods: one of two may go at a time", async () => {
    const expected = SERVICES.map((service) => `${fullname}-${service} ${REPLICAS}/${REPLICAS} allowed 1`).sort();
    await pollUntil(async () => JSON.stringify(await budgetCounts(env.client, ns.name)) === JSON.stringify(expected), {
      timeoutMs: 30_000,
      description: 'the PDBs to count the pods',
    });
    expect(await budgetCounts(env.client, ns.name)).toEqual(expected);
  });

  it('helm uninstall removes what the release installed, through to its pods, and leaves the rest', async () => {
    const pods = await get<List<{ metadata: { name: string } }>>(`/api/v1/namespaces/${ns.name}/pods`);
    expect(pods.items).toHaveLength(SERVICES.length * REPLICAS + 1);

    const uninstalled = await helm.run(['uninstall', release, '--namespace', ns.name, '--wait', '--timeout', '2m']);
    expect(uninstalled).toEqual({ code: 0, output: expect.stringContaining(`release "${release}" uninstalled`) });

    // The garbage collector deletes the ReplicaSets of the deleted Deployments, and their pods; helm never deletes
    // a hook object, so the config Secret stays, as the chart's README says.
    const after = [...before, ...objects.keptHooks].sort();
    const inventory = (): Promise<string[]> => namespaceInventory(env.client, ns.name);
    await pollUntil(async () => JSON.stringify(await inventory()) === JSON.stringify(after), {
      timeoutMs: 60_000,
      description: 'the namespace to hold what it held before',
    });
    expect(await inventory()).toEqual(after);
    expect(before).toEqual(['configmaps/bystander', 'pods/bystander']);
    expect(await clusterObjectsOf(env.client, release)).toEqual([]);
    const namespace = await get<{ status: { phase: string } }>(`/api/v1/namespaces/${ns.name}`);
    expect(namespace.status.phase).toBe('Active');
  }, 180_000);
});
