// The chart's RBAC with volumeS3.enabled is enough for the S3 endpoints of network volumes: a scheduler whose
// kubeconfig holds only a TokenRequest token of the chart's scheduler ServiceAccount, run with the chart's scheduler
// env (KUBE_VOLUME_S3_* included), applies its data center's volumes claim, volume-s3 Deployment and Service in the
// workload namespace, and that token may neither read nor delete them, nor write Deployments elsewhere.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKubeClients, type KubeClients } from '@runplane/kube';
import {
  createTestNamespace,
  KubeTestClient,
  kubeTestEnv,
  NODE_POOL_LABEL,
  pollUntil,
  registerNodePools,
  removeNodePool,
  type TestNamespace,
} from '@runplane/testing';
import {
  collection,
  createIgnoringConflict,
  requestToken,
  serviceAccountName,
  startAsChartScheduler,
  statusOf,
  writeTokenKubeconfig,
} from './chart-identity';
import { type KubeObject, ofKind, render, serviceEnv } from './helm-chart';
import type { PlatformHarness } from '../../apps/scheduler/test/harness';
import { rtxPool } from '../../apps/scheduler/test/kube-platform';

const POOL = 'chart-rbac-volume-s3';
const IMAGE = 'registry.example/runplane:rbac-s3';

/** The fields of the S3 endpoint's Deployment this file reads. */
interface Deployment {
  spec: {
    template: {
      spec: {
        containers: { image: string; env: { name: string; valueFrom?: { secretKeyRef?: { name: string } } }[] }[];
      };
    };
  };
}

describe("the chart's scheduler RBAC with S3 endpoints of network volumes, on a real apiserver", () => {
  const env = kubeTestEnv();
  const dir = mkdtempSync(path.join(tmpdir(), 'chart-rbac-s3-'));
  let release: TestNamespace;
  let work: TestNamespace;
  let applied: KubeObject[] = [];
  let asScheduler: KubeTestClient;
  let admin: KubeClients;
  let p: PlatformHarness;

  beforeAll(async () => {
    release = await createTestNamespace('chart-s3', env);
    work = await createTestNamespace('chart-s3-work', env);
    await registerNodePools(env, [rtxPool(1)], { poolLabel: POOL });
    const objects = await render({
      namespace: release.name,
      set: [
        `workloads.namespace=${work.name}`,
        `workloads.nodeSelector.${NODE_POOL_LABEL.replace(/\./g, '\\.')}=${POOL}`,
        'workloads.requestContainerDisk=false',
        'volumeS3.enabled=true',
        'volumeS3.existingSecret=runplane-volume-s3',
        `volumeS3.image=${IMAGE}`,
        'volumeS3.storageGb=300',
      ],
    });
    applied = ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding', 'PriorityClass'].flatMap(
      (kind) => ofKind(objects, kind),
    );
    for (const object of applied) await createIgnoringConflict(env.client, object);
    const token = await requestToken(env, release.name, serviceAccountName('scheduler'));
    const kubeconfigPath = path.join(dir, 'scheduler.kubeconfig');
    writeTokenKubeconfig(env, kubeconfigPath, 'scheduler', token);
    asScheduler = new KubeTestClient({ ...env.connection, token });
    const chartEnv = serviceEnv(objects, 'scheduler');
    const scheduler = Object.fromEntries(
      Object.entries(chartEnv).filter(
        ([key]) =>
          key.startsWith('KUBE_VOLUME_S3_') ||
          ['SCHEDULER_DRIVER', 'KUBE_NAMESPACE', 'KUBE_NODE_SELECTOR', 'KUBE_APPLY_PRIORITY_CLASSES'].includes(key) ||
          ['KUBE_LEADER_LEASE', 'KUBE_REQUEST_CONTAINER_DISK'].includes(key),
      ),
    );
    p = await startAsChartScheduler(POOL, scheduler, kubeconfigPath);
    admin = createKubeClients({ kubeconfigPath: env.kubeconfigPath, qps: 100, burst: 200 });
  }, 240_000);

  afterAll(async () => {
    await p?.close();
    admin?.close();
    for (const namespace of [work, release]) await namespace?.delete();
    await removeNodePool(env, POOL);
    for (const object of applied)
      if (object.kind.startsWith('Cluster')) await env.client.delete(`${collection(object)}/${object.metadata.name}`);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  const deployments = (namespace: string) => `/apis/apps/v1/namespaces/${namespace}/deployments`;

  it("applies the data center's volumes claim, volume-s3 Deployment and Service in the workload namespace", async () => {
    const deployment = await pollUntil(
      () => env.client.get<Deployment>(`${deployments(work.name)}/runplane-volume-s3-eu-ro-1`).catch(() => undefined),
      { timeoutMs: 30_000, description: 'the S3 endpoint Deployment' },
    );
    const container = deployment.spec.template.spec.containers[0];
    expect(container?.image).toBe(IMAGE);
    expect(container?.env.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef?.name).toBe(
      'runplane-volume-s3',
    );
    const claim = await admin.core.readNamespacedPersistentVolumeClaim({
      name: 'runplane-volumes-eu-ro-1',
      namespace: work.name,
    });
    expect([claim.spec?.accessModes, claim.spec?.resources?.requests]).toEqual([
      ['ReadWriteMany'],
      { storage: '300Gi' },
    ]);
    const service = await admin.core.readNamespacedService({
      name: 'runplane-volume-s3-eu-ro-1',
      namespace: work.name,
    });
    expect(service.spec?.ports?.map((port) => port.port)).toEqual([8089]);
  });

  it('is refused reading, listing and deleting the Deployment, and Deployments outside the workload namespace', async () => {
    const name = 'runplane-volume-s3-eu-ro-1';
    expect(await statusOf(asScheduler.get(`${deployments(work.name)}/${name}`))).toBe(403);
    expect(await statusOf(asScheduler.get(deployments(work.name)))).toBe(403);
    expect(await statusOf(asScheduler.delete(`${deployments(work.name)}/${name}`))).toBe(403);
    const elsewhere = { metadata: { labels: { x: 'y' } } };
    expect(await statusOf(asScheduler.patch(`${deployments(release.name)}/${name}`, elsewhere))).toBe(403);
    expect(await statusOf(asScheduler.get('/apis/apps/v1/deployments'))).toBe(403);
  });
});
