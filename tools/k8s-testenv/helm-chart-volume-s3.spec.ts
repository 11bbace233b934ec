// The chart's S3 access to network volumes: the scheduler's KUBE_VOLUME_S3_* settings, the Secret the volume-s3
// pods read in the workload namespace, and the Ingress that routes one host per data center to its S3 endpoint.
import { randomBytes } from 'node:crypto';
import { type KubeObject, named, ofKind, PRODUCTION_VALUES, RELEASE, render, serviceEnv, template } from './helm-chart';

const PREFIX = `${RELEASE}-runplane`;
const KEY = randomBytes(32).toString('hex');
const FROM_VALUES = [
  'database.url=postgres://runplane:pw@db:5432/runplane',
  `encryptionKey.value=${KEY}`,
  'workloads.namespace=gpu-work',
  'volumeS3.enabled=true',
];

describe('helm/runplane S3 endpoints of network volumes', () => {
  let defaults: KubeObject[];
  let production: KubeObject[];

  beforeAll(async () => {
    [defaults, production] = await Promise.all([render(), render({ files: [PRODUCTION_VALUES] })]);
  });

  it('is off by default: no KUBE_VOLUME_S3_* for the scheduler, no S3 Secret or Ingress', () => {
    const env = serviceEnv(defaults, 'scheduler');
    expect(Object.keys(env).filter((name) => name.startsWith('KUBE_VOLUME_S3_'))).toEqual([]);
    expect(ofKind(defaults, 'Ingress')).toEqual([]);
    expect(ofKind(defaults, 'Secret').map((s) => s.metadata.name)).not.toContain(`${PREFIX}-volume-s3`);
  });

  it("gives the scheduler the chart's image, the claim's StorageClass and size, and the existing Secret's name", () => {
    expect(serviceEnv(production, 'scheduler')).toMatchObject({
      KUBE_VOLUME_S3_IMAGE: 'registry.example.com/runplane/runplane:0.1.0',
      KUBE_VOLUME_S3_STORAGE_CLASS: 'cephfs',
      KUBE_VOLUME_S3_STORAGE_GB: '20000',
      KUBE_VOLUME_S3_DATABASE_SECRET: 'runplane-volume-s3',
      KUBE_VOLUME_S3_ENCRYPTION_SECRET: 'runplane-volume-s3',
    });
    expect(ofKind(production, 'Secret')).toEqual([]);
  });

  it("runs the volume-s3 pods as the image's user with fsGroup 10001 and pulls with the chart's imagePullSecrets", () => {
    expect(serviceEnv(production, 'scheduler')).toMatchObject({
      KUBE_VOLUME_S3_RUN_AS_USER: '10001',
      KUBE_VOLUME_S3_RUN_AS_GROUP: '10001',
      KUBE_VOLUME_S3_FS_GROUP: '10001',
      KUBE_VOLUME_S3_IMAGE_PULL_SECRETS: 'registry-example-com',
    });
  });

  it("takes the volume-s3 pods' own user, groups and pull Secrets over the chart's", async () => {
    const env = serviceEnv(
      await render({
        files: [PRODUCTION_VALUES],
        set: [
          'volumeS3.runAsUser=2000',
          'volumeS3.runAsGroup=3000',
          'volumeS3.fsGroup=4000',
          'volumeS3.imagePullSecrets[0].name=gpu-regcred',
          'volumeS3.imagePullSecrets[1].name=mirror',
        ],
      }),
      'scheduler',
    );
    expect(env).toMatchObject({
      KUBE_VOLUME_S3_RUN_AS_USER: '2000',
      KUBE_VOLUME_S3_RUN_AS_GROUP: '3000',
      KUBE_VOLUME_S3_FS_GROUP: '4000',
      KUBE_VOLUME_S3_IMAGE_PULL_SECRETS: 'gpu-regcred,mirror',
    });
  });

  it('makes the Secret in the workload namespace from database.url and encryptionKey.value, and takes a given image', async () => {
    const objects = await render({
      set: [...FROM_VALUES, 'volumeS3.image=registry.example/s3:1', 'redis.url=redis://r'],
    });
    const secret = named(objects, 'Secret', `${PREFIX}-volume-s3`);
    expect(secret.metadata.namespace).toBe('gpu-work');
    expect(secret['stringData']).toEqual({
      DATABASE_URL: 'postgres://runplane:pw@db:5432/runplane',
      RUNPLANE_ENCRYPTION_KEY: KEY,
    });
    const env = serviceEnv(objects, 'scheduler');
    expect(env).toMatchObject({
      KUBE_VOLUME_S3_IMAGE: 'registry.example/s3:1',
      KUBE_VOLUME_S3_STORAGE_GB: '1000',
      KUBE_VOLUME_S3_DATABASE_SECRET: `${PREFIX}-volume-s3`,
      KUBE_VOLUME_S3_ENCRYPTION_SECRET: `${PREFIX}-volume-s3`,
    });
    expect(env['KUBE_VOLUME_S3_STORAGE_CLASS']).toBeUndefined();
    expect(env['KUBE_VOLUME_S3_IMAGE_PULL_SECRETS']).toBeUndefined();
  });

  it("routes each data center's host whole to its S3 endpoint's Service, from the workload namespace", () => {
    const ingress = named(production, 'Ingress', `${PREFIX}-volume-s3`);
    expect(ingress.metadata.namespace).toBe('runplane-workloads');
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size']).toBe('0');
    expect(ingress['spec'].ingressClassName).toBe('nginx');
    expect(ingress['spec'].tls).toEqual([
      { hosts: ['s3api-eu-fr-1.gpu.example.com', 's3api-eu-ro-1.gpu.example.com'], secretName: 'runplane-s3-tls' },
    ]);
    const backend = (name: string) => ({ service: { name, port: { number: 8089 } } });
    expect(ingress['spec'].rules).toEqual([
      {
        host: 's3api-eu-fr-1.gpu.example.com',
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('runplane-volume-s3-eu-fr-1') }] },
      },
      {
        host: 's3api-eu-ro-1.gpu.example.com',
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('runplane-volume-s3-eu-ro-1') }] },
      },
    ]);
  });

  it.each([
    [['volumeS3.enabled=true'], 'volumeS3.existingSecret is required with volumeS3.enabled'],
    [['volumeS3.ingress.enabled=true'], 'volumeS3.ingress.enabled needs volumeS3.enabled'],
    [[...FROM_VALUES, 'volumeS3.ingress.enabled=true'], 'volumeS3.ingress.hosts is required'],
    [['volumeS3.ingress.hosts.eu-ro-1=s3.example.com'], "invalid propertyName 'eu-ro-1'"],
    [['volumeS3.storageGb=0'], "at '/volumeS3/storageGb'"],
    [['volumeS3.fsGroup=0'], "at '/volumeS3/fsGroup'"],
    [['volumeS3.imagePullSecrets[0].secret=regcred'], "at '/volumeS3/imagePullSecrets/0'"],
  ])('refuses %j at install with a message naming the value', async (set, message) => {
    const result = await template({ set: [...set, 'redis.url=redis://r'] });
    expect(result.output).toContain(message);
    expect(result.code).not.toBe(0);
  });
});
