import type { WorkloadSpec } from '../compute-driver';
import { schedulerEnvSchema } from '../../config';
import type { WorkloadExtras } from '@runplane/workloads';
import { buildTokenSecret, buildWorkloadObjects, type ObjectSettings } from './workload-objects';

const spec: WorkloadSpec = {
  podId: 'p1',
  accountId: 'a1',
  endpointId: null,
  generation: 2,
  image: 'ghcr.io/bob/app:1',
  command: ['python', 'serve.py'],
  env: { MODEL: 'llama' },
  machineName: 'gpu-0',
  gpuCount: 2,
  gpuProduct: 'NVIDIA-H100-80GB-HBM3',
  vcpuCount: 16,
  memoryInGb: 64,
  ports: ['8888/http', '22/tcp'],
  wipeContainerDisk: false,
  loadBalancer: null,
};
const extras: WorkloadExtras = {
  interruptible: true,
  containerDiskInGb: 20,
  volumeInGb: 50,
  volumeMountPath: '/workspace',
  dataCenterId: 'EU-RO-1',
  networkVolume: null,
  registryAuth: null,
};
const settings: ObjectSettings = {
  namespace: 'runplane',
  nodeSelector: { 'runplane.io/node-pool': 'gpu-a' },
  requestContainerDisk: true,
  terminationGracePeriodSeconds: 10,
};

describe('buildWorkloadObjects', () => {
  it('pins a Pod to its machine and node pool, with GPU product, region, priority and its own volume', () => {
    const objects = buildWorkloadObjects(spec, extras, settings, 'rp-tokens-t1');
    const pod = objects.pod;
    expect(pod.metadata).toMatchObject({
      name: 'rp-p1',
      namespace: 'runplane',
      annotations: { 'runplane.io/generation': '2' },
    });
    expect(pod.metadata?.labels).toEqual({
      'app.kubernetes.io/managed-by': 'runplane',
      'runplane.io/account-id': 'a1',
      'runplane.io/pod-id': 'p1',
      'runplane.io/kind': 'pod',
    });
    expect(pod.spec?.nodeSelector).toEqual({ 'runplane.io/node-pool': 'gpu-a', 'kubernetes.io/hostname': 'gpu-0' });
    expect(
      pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]
        ?.matchExpressions,
    ).toEqual([
      { key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-H100-80GB-HBM3'] },
      { key: 'topology.kubernetes.io/region', operator: 'In', values: ['EU-RO-1'] },
    ]);
    expect(pod.spec?.priorityClassName).toBe('runplane-interruptible');
    expect(pod.spec?.terminationGracePeriodSeconds).toBe(10);
    const container = pod.spec?.containers[0];
    expect(container?.command).toEqual(['python', 'serve.py']);
    expect(container?.resources?.limits).toEqual({
      cpu: '16',
      memory: '64Gi',
      'ephemeral-storage': '20Gi',
      'nvidia.com/gpu': '2',
    });
    expect(pod.spec?.volumes).toEqual([{ name: 'workspace', persistentVolumeClaim: { claimName: 'rp-p1-volume' } }]);
    expect(objects.claim?.spec).toMatchObject({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '50Gi' } },
    });
    expect(objects.claim?.metadata?.labels).toMatchObject({ 'runplane.io/pod-id': 'p1' });
    expect(objects.portService?.spec?.ports?.map((p) => p.port)).toEqual([22]);
    expect(objects.httpService?.spec?.ports?.map((p) => p.port)).toEqual([8888]);
    expect(objects.tokenSecret).toBeNull();
    expect(objects.pullSecret).toBeNull();
  });

  it('mounts a network volume claim (ReadWriteMany) and pulls with the registry auth', () => {
    const objects = buildWorkloadObjects(
      spec,
      {
        ...extras,
        networkVolume: { id: 'v1', sizeGb: 100 },
        registryAuth: { id: 'r1', username: 'bob', password: 'pw' },
      },
      { ...settings, storageClassName: 'rwx', requestContainerDisk: false },
      'rp-tokens-t1',
    );
    expect(objects.claim?.metadata?.name).toBe('rp-vol-v1');
    expect(objects.claim?.spec).toMatchObject({
      accessModes: ['ReadWriteMany'],
      storageClassName: 'rwx',
      resources: { requests: { storage: '100Gi' } },
    });
    expect(objects.pod.spec?.volumes).toEqual([
      { name: 'workspace', persistentVolumeClaim: { claimName: 'rp-vol-v1' } },
    ]);
    expect(objects.pod.spec?.imagePullSecrets).toEqual([{ name: 'rp-auth-r1' }]);
    expect(objects.pullSecret?.metadata?.labels).toMatchObject({ 'runplane.io/registry-auth-id': 'r1' });
    expect(objects.pod.spec?.containers[0]?.resources?.limits?.['ephemeral-storage']).toBeUndefined();
  });

  it('keeps a worker token out of the pod spec: it lives under its own key of the token Secret the container reads', () => {
    const worker = {
      ...spec,
      endpointId: 'e1',
      ports: [],
      env: { RUNPOD_AI_API_KEY: 'rpw_secret', RUNPOD_ENDPOINT_ID: 'e1' },
    };
    const objects = buildWorkloadObjects(worker, extras, settings, 'rp-tokens-t1');
    expect(objects.pod.metadata?.labels).toMatchObject({
      'runplane.io/kind': 'worker',
      'runplane.io/endpoint-id': 'e1',
    });
    expect(objects.pod.spec?.containers[0]?.env).toEqual([
      { name: 'RUNPOD_ENDPOINT_ID', value: 'e1' },
      { name: 'RUNPOD_AI_API_KEY', valueFrom: { secretKeyRef: { name: 'rp-tokens-t1', key: 'p1.runpod-ai-api-key' } } },
    ]);
    expect(objects.tokenSecret?.name).toBe('rp-tokens-t1');
    expect(Object.keys(objects.tokenSecret?.data ?? {})).toEqual(['p1.runpod-ai-api-key']);
    expect(Buffer.from(objects.tokenSecret?.data['p1.runpod-ai-api-key'] ?? '', 'base64').toString()).toBe(
      'rpw_secret',
    );
    expect(JSON.stringify(objects.pod)).not.toContain('rpw_secret');
    // Workers keep nothing between runs: no claim for their volume.
    expect(objects.claim).toBeNull();
    const secret = buildTokenSecret('rp-tokens-t1', 'runplane', 'a1', objects.tokenSecret?.data ?? {});
    expect(secret.metadata?.labels).toEqual({
      'app.kubernetes.io/managed-by': 'runplane',
      'runplane.io/account-id': 'a1',
      'runplane.io/token-secret': 'true',
    });
  });
});

describe('load-balancing workers', () => {
  const worker: WorkloadSpec = { ...spec, endpointId: 'e1', ports: ['8888/http'], env: { PORT: '8000' } };

  it('declares PORT and PORT_HEALTH as containerPorts and names them in annotations', () => {
    const pod = buildWorkloadObjects(
      { ...worker, loadBalancer: { port: 8000, healthPort: 8001 } },
      extras,
      settings,
      't',
    ).pod;
    expect(pod.spec?.containers[0]?.ports).toEqual([
      { name: 'http-8888', containerPort: 8888, protocol: 'TCP' },
      { name: 'rp-serve', containerPort: 8000, protocol: 'TCP' },
      { name: 'rp-health', containerPort: 8001, protocol: 'TCP' },
    ]);
    expect(pod.metadata?.annotations).toEqual({
      'runplane.io/generation': '2',
      'runplane.io/lb-port': '8000',
      'runplane.io/lb-health-port': '8001',
    });
  });

  it('declares one port when the server answers health itself, and none the template already declares', () => {
    const shared = buildWorkloadObjects(
      { ...worker, loadBalancer: { port: 80, healthPort: 80 } },
      extras,
      settings,
      't',
    );
    expect(shared.pod.spec?.containers[0]?.ports?.map((port) => port.containerPort)).toEqual([8888, 80]);
    const declared = buildWorkloadObjects(
      { ...worker, loadBalancer: { port: 8888, healthPort: 8888 } },
      extras,
      settings,
      't',
    );
    expect(declared.pod.spec?.containers[0]?.ports?.map((port) => port.containerPort)).toEqual([8888]);
  });

  it('leaves queue workers without load-balancing ports or annotations', () => {
    const pod = buildWorkloadObjects(worker, extras, settings, 't').pod;
    expect(pod.spec?.containers[0]?.ports?.map((port) => port.containerPort)).toEqual([8888]);
    expect(pod.metadata?.annotations).toEqual({ 'runplane.io/generation': '2' });
  });
});

describe('kubernetes driver settings', () => {
  const base = { DATABASE_URL: 'postgres://localhost/db' };

  it('parses the node selector and defaults', () => {
    const config = schedulerEnvSchema.parse({ ...base, KUBE_NODE_SELECTOR: 'runplane.io/node-pool=gpu-a, tier=prod' });
    expect(config).toMatchObject({
      KUBE_NAMESPACE: 'runplane',
      KUBE_NODE_SELECTOR: { 'runplane.io/node-pool': 'gpu-a', tier: 'prod' },
      KUBE_QPS: 50,
      KUBE_BURST: 100,
      KUBE_REQUEST_CONTAINER_DISK: true,
    });
  });

  it('refuses a malformed selector or namespace', () => {
    expect(schedulerEnvSchema.safeParse({ ...base, KUBE_NODE_SELECTOR: 'pool' }).success).toBe(false);
    expect(schedulerEnvSchema.safeParse({ ...base, KUBE_NAMESPACE: 'Not_A_Namespace' }).success).toBe(false);
  });
});
