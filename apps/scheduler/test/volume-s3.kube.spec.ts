// The S3 endpoints of network volumes on Kubernetes: with KUBE_VOLUME_S3_IMAGE set, the scheduler gives each data
// center of its nodes a ReadWriteMany volumes claim, the volume-s3 Deployment mounting it whole and its Service, and
// Pods mount their network volume as a subPath of that claim.
import { pollUntil } from '@runplane/testing';
import { type KubePlatform, RTX, rtxPool, startKubePlatform } from './kube-platform';

const POOL = 'sched-kube-volume-s3';

/** The fields of the Deployment this file reads. */
interface Deployment {
  apiVersion: string;
  kind: string;
  spec?: {
    selector: { matchLabels?: Record<string, string> };
    template: {
      spec?: {
        securityContext?: unknown;
        imagePullSecrets?: unknown[];
        containers: { image?: string; args?: string[]; volumeMounts?: unknown[]; securityContext?: unknown }[];
        volumes?: unknown[];
      };
    };
  };
}
const IMAGE = 'registry.example/runplane:s3-test';

describe('S3 endpoints of network volumes on Kubernetes', () => {
  let k: KubePlatform;

  beforeAll(async () => {
    k = await startKubePlatform(POOL, [rtxPool(1)], {
      scheduler: {
        KUBE_VOLUME_S3_IMAGE: IMAGE,
        KUBE_VOLUME_S3_STORAGE_GB: '200',
        KUBE_VOLUME_S3_FS_GROUP: '20002',
        KUBE_VOLUME_S3_IMAGE_PULL_SECRETS: 'regcred, mirror-cred',
      },
    });
  }, 240_000);

  afterAll(async () => {
    await k?.close();
  }, 120_000);

  const until = <T>(what: string, check: () => Promise<T | undefined | false>) =>
    pollUntil(check, { timeoutMs: 30_000, intervalMs: 100, description: what });

  it("creates the data center's volumes claim, S3 endpoint Deployment and Service", async () => {
    const deployment = await until('the S3 endpoint Deployment', () =>
      k.kube.objects
        .read<Deployment>({
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'runplane-volume-s3-eu-ro-1', namespace: k.namespace },
        })
        .catch(() => undefined),
    );
    const pod = deployment.spec?.template.spec;
    expect(pod?.containers.map((c) => [c.image, c.args])).toEqual([[IMAGE, ['node', 'dist/apps/volume-s3/main.js']]]);
    expect(pod?.containers[0]?.volumeMounts).toEqual([
      { name: 'volumes', mountPath: '/volumes' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(pod?.volumes).toEqual([
      { name: 'volumes', persistentVolumeClaim: { claimName: 'runplane-volumes-eu-ro-1' } },
      { name: 'tmp', emptyDir: {} },
    ]);
    expect(pod?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      fsGroup: 20002,
      fsGroupChangePolicy: 'OnRootMismatch',
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod?.containers[0]?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod?.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'mirror-cred' }]);
    const claim = await k.kube.core.readNamespacedPersistentVolumeClaim({
      name: 'runplane-volumes-eu-ro-1',
      namespace: k.namespace,
    });
    expect(claim.spec?.accessModes).toEqual(['ReadWriteMany']);
    expect(claim.spec?.resources?.requests).toEqual({ storage: '200Gi' });
    const service = await k.kube.core.readNamespacedService({
      name: 'runplane-volume-s3-eu-ro-1',
      namespace: k.namespace,
    });
    expect(service.spec?.ports?.map((p) => [p.name, p.port])).toEqual([['s3', 8089]]);
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
    expect(await k.objects()).toEqual(
      expect.arrayContaining(['pvc/runplane-volumes-eu-ro-1', 'service/runplane-volume-s3-eu-ro-1']),
    );
  });

  it("mounts a Pod's network volume as its directory of the volumes claim, with no claim of its own", async () => {
    const volume = await k.p.v1('POST', '/networkvolumes', { name: 'data', size: 10, dataCenterId: 'EU-RO-1' });
    const volumeId = (volume.body as { id: string }).id;
    const created = await k.p.v1('POST', '/pods', {
      name: 'on-volume',
      imageName: 'runpod/base:0.6.2',
      gpuTypeIds: [RTX],
      gpuCount: 1,
      networkVolumeId: volumeId,
    });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const pod = await until('the Pod on the volume', async () => (await k.pod(id)) ?? false);
    expect(pod.spec?.volumes).toEqual([
      { name: 'workspace', persistentVolumeClaim: { claimName: 'runplane-volumes-eu-ro-1' } },
    ]);
    expect(pod.spec?.containers[0]?.volumeMounts).toEqual([
      { name: 'workspace', mountPath: '/workspace', subPath: volumeId },
    ]);
    expect(await k.objects()).not.toContain(`pvc/rp-vol-${volumeId}`);
  });
});
