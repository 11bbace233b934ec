// The chart's RBAC with volumeS3.enabled is enough for the S3 endpoints of network volumes: a scheduler whose
// kubeconfig holds only a TokenRequest token of the chart's scheduler ServiceAccount, run with the chart's scheduler
// env (KUBE_VOLUME_S3_* included), applies its data center's volumes claim, volume-s3 Deployment and Service in the
// workload namespace, and that token may neither read nor delete them, nor write Deployments elsewhere.
import type { KubeClients } from '@runplane/kube';
import { type KubeTestClient, pollUntil, type TestNamespace } from '@runplane/testing';
import { ChartFixture, statusOf } from './chart-identity';
import { startAsChartScheduler } from './chart-platform';
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
  const chart = new ChartFixture();
  const env = chart.env;
  let release: TestNamespace;
  let work: TestNamespace;
  let asScheduler: KubeTestClient;
  let admin: KubeClients;
  let p: PlatformHarness;

  beforeAll(async () => {
    release = await chart.namespace('chart-s3');
    work = await chart.namespace('chart-s3-work');
    await chart.nodePools(POOL, [rtxPool(1)]);
    const identity = await chart.applyIdentity({
      release: release.name,
      workloads: work.name,
      pool: POOL,
      set: [
        'volumeS3.enabled=true',
        'volumeS3.existingSecret=runplane-volume-s3',
        `volumeS3.image=${IMAGE}`,
        'volumeS3.storageGb=300',
      ],
    });
    const login = await chart.schedulerLogin();
    asScheduler = login.client;
    p = await startAsChartScheduler(POOL, identity.schedulerEnv, login.kubeconfigPath);
    admin = chart.admin();
  }, 240_000);

  afterAll(async () => {
    await p?.close();
    await chart.close();
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
