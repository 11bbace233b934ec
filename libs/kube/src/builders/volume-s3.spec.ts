import { buildWorkloadPod } from './workload-pod';
import { buildVolumeS3Objects, VOLUME_S3_PORT } from './volume-s3';

const input = {
  namespace: 'runplane',
  dataCenterId: 'EU-RO-1',
  image: 'registry.example/runplane:1.2.3',
  storageClassName: 'nfs',
  storageGb: 500,
  databaseSecret: 'runplane-database',
  encryptionKeySecret: 'runplane-encryption-key',
};

describe('buildVolumeS3Objects', () => {
  it('claims one ReadWriteMany filesystem for the data center, mounted whole into its S3 endpoint', () => {
    const { claim, deployment, service } = buildVolumeS3Objects(input);
    expect(claim.metadata?.name).toBe('runplane-volumes-eu-ro-1');
    expect(claim.spec).toEqual({
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage: '500Gi' } },
      storageClassName: 'nfs',
    });
    const pod = deployment.spec?.template.spec;
    expect(pod?.volumes).toEqual([
      { name: 'volumes', persistentVolumeClaim: { claimName: 'runplane-volumes-eu-ro-1' } },
      { name: 'tmp', emptyDir: {} },
    ]);
    const container = pod?.containers[0];
    expect(container?.volumeMounts).toEqual([
      { name: 'volumes', mountPath: '/volumes' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(container?.args).toEqual(['node', 'dist/apps/volume-s3/main.js']);
    expect(container?.env).toEqual(
      expect.arrayContaining([
        { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'runplane-database', key: 'DATABASE_URL' } } },
        {
          name: 'RUNPLANE_ENCRYPTION_KEY',
          valueFrom: { secretKeyRef: { name: 'runplane-encryption-key', key: 'RUNPLANE_ENCRYPTION_KEY' } },
        },
        { name: 'VOLUME_S3_DATA_CENTER', value: 'EU-RO-1' },
        { name: 'VOLUME_S3_VOLUMES_DIR', value: '/volumes' },
      ]),
    );
    expect(deployment.spec?.replicas).toBe(1);
    expect(deployment.spec?.strategy).toEqual({ type: 'Recreate' });
    expect(service.metadata?.name).toBe('runplane-volume-s3-eu-ro-1');
    expect(service.spec?.selector).toEqual(deployment.spec?.selector.matchLabels);
    expect(service.spec?.ports).toEqual([{ name: 's3', port: VOLUME_S3_PORT, targetPort: VOLUME_S3_PORT }]);
  });

  it("runs as the image's non-root user, owning the claim through fsGroup, with nothing writable but the claim and /tmp", () => {
    const pod = buildVolumeS3Objects(input).deployment.spec?.template.spec;
    expect(pod?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      fsGroup: 10001,
      fsGroupChangePolicy: 'OnRootMismatch',
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod?.containers[0]?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod?.imagePullSecrets).toBeUndefined();
  });

  it('takes the user, group and fsGroup an operator gives, and pulls the image with the given Secrets', () => {
    const pod = buildVolumeS3Objects({
      ...input,
      runAs: { user: 2000, group: 3000, fsGroup: 4000 },
      imagePullSecrets: ['regcred', 'mirror'],
    }).deployment.spec?.template.spec;
    expect(pod?.securityContext).toMatchObject({ runAsUser: 2000, runAsGroup: 3000, fsGroup: 4000 });
    expect(pod?.imagePullSecrets).toEqual([{ name: 'regcred' }, { name: 'mirror' }]);
  });

  it('lets a workload pod mount one volume directory of that filesystem with subPath', () => {
    const pod = buildWorkloadPod({
      name: 'pod-1',
      namespace: 'runplane',
      podId: 'pod1',
      accountId: 'acc1',
      kind: 'pod',
      image: 'alpine:3',
      vcpuCount: 1,
      memoryInGb: 1,
      containerDiskInGb: 5,
      interruptible: false,
      dataCenterIds: ['EU-RO-1'],
      volume: { mountPath: '/workspace', claimName: 'runplane-volumes-eu-ro-1', subPath: 'vol123' },
    });
    expect(pod.spec?.containers[0]?.volumeMounts).toEqual([
      { name: 'workspace', mountPath: '/workspace', subPath: 'vol123' },
    ]);
  });
});
