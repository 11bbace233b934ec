import { buildWorkloadPod, type WorkloadPodInput } from './workload-pod';

const gpuPod: WorkloadPodInput = {
  name: 'rp-pod1',
  namespace: 'runplane-acct',
  podId: 'pod1',
  accountId: 'acct1',
  kind: 'pod',
  image: 'runpod/pytorch:2.4.0',
  dockerEntrypoint: ['bash', '-c'],
  dockerStartCmd: ['sleep infinity'],
  env: { HF_HOME: '/workspace/hf', RUNPOD_POD_ID: 'pod1' },
  secretEnv: [{ name: 'RUNPOD_AI_API_KEY', secretName: 'rp-pod1-token', key: 'token' }],
  ports: ['8888/http', '22/tcp', '5353/udp'],
  gpu: { product: 'NVIDIA-H100-80GB-HBM3', count: 2 },
  vcpuCount: 16,
  memoryInGb: 250,
  containerDiskInGb: 50,
  dataCenterIds: ['EU-RO-1', 'US-TX-3'],
  nodeSelector: { 'runplane.io/node-pool': 'dedicated-a' },
  interruptible: false,
  volume: { mountPath: '/workspace', claimName: 'rp-vol-vol1' },
  imagePullSecrets: ['rp-auth-auth1'],
  terminationGracePeriodSeconds: 15,
  generation: 3,
};

describe('buildWorkloadPod', () => {
  it('builds every field of a GPU pod', () => {
    expect(buildWorkloadPod(gpuPod)).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'rp-pod1',
        namespace: 'runplane-acct',
        labels: {
          'app.kubernetes.io/managed-by': 'runplane',
          'runplane.io/account-id': 'acct1',
          'runplane.io/pod-id': 'pod1',
          'runplane.io/kind': 'pod',
        },
        annotations: { 'runplane.io/generation': '3' },
      },
      spec: {
        containers: [
          {
            name: 'workload',
            image: 'runpod/pytorch:2.4.0',
            command: ['bash', '-c'],
            args: ['sleep infinity'],
            env: [
              { name: 'HF_HOME', value: '/workspace/hf' },
              { name: 'RUNPOD_POD_ID', value: 'pod1' },
              { name: 'RUNPOD_AI_API_KEY', valueFrom: { secretKeyRef: { name: 'rp-pod1-token', key: 'token' } } },
            ],
            ports: [
              { name: 'http-8888', containerPort: 8888, protocol: 'TCP' },
              { name: 'tcp-22', containerPort: 22, protocol: 'TCP' },
              { name: 'udp-5353', containerPort: 5353, protocol: 'UDP' },
            ],
            resources: {
              requests: { cpu: '16', memory: '250Gi', 'ephemeral-storage': '50Gi', 'nvidia.com/gpu': '2' },
              limits: { cpu: '16', memory: '250Gi', 'ephemeral-storage': '50Gi', 'nvidia.com/gpu': '2' },
            },
            volumeMounts: [{ name: 'workspace', mountPath: '/workspace' }],
          },
        ],
        restartPolicy: 'Always',
        terminationGracePeriodSeconds: 15,
        priorityClassName: 'runplane-on-demand',
        enableServiceLinks: false,
        automountServiceAccountToken: false,
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'nvidia.com/gpu.product', operator: 'In', values: ['NVIDIA-H100-80GB-HBM3'] },
                    { key: 'topology.kubernetes.io/region', operator: 'In', values: ['EU-RO-1', 'US-TX-3'] },
                  ],
                },
              ],
            },
          },
        },
        nodeSelector: { 'runplane.io/node-pool': 'dedicated-a' },
        tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
        volumes: [{ name: 'workspace', persistentVolumeClaim: { claimName: 'rp-vol-vol1' } }],
        imagePullSecrets: [{ name: 'rp-auth-auth1' }],
      },
    });
  });

  it('labels a worker with its endpoint and uses the interruptible class when asked', () => {
    const pod = buildWorkloadPod({ ...gpuPod, kind: 'worker', endpointId: 'ep1', interruptible: true });
    expect(pod.metadata?.labels).toEqual({
      'app.kubernetes.io/managed-by': 'runplane',
      'runplane.io/account-id': 'acct1',
      'runplane.io/pod-id': 'pod1',
      'runplane.io/kind': 'worker',
      'runplane.io/endpoint-id': 'ep1',
    });
    expect(pod.spec?.priorityClassName).toBe('runplane-interruptible');
    expect(pod.spec?.restartPolicy).toBe('Always');
  });

  it('refuses a worker without an endpoint and a GPU pod without GPUs', () => {
    expect(() => buildWorkloadPod({ ...gpuPod, kind: 'worker' })).toThrow('endpointId');
    expect(() => buildWorkloadPod({ ...gpuPod, gpu: { product: 'X', count: 0 } })).toThrow('GPU count');
  });

  it('builds a CPU pod with image defaults: no GPU resource, affinity term, toleration or optional fields', () => {
    const pod = buildWorkloadPod({
      name: 'rp-cpu1',
      namespace: 'ns',
      podId: 'cpu1',
      accountId: 'acct1',
      kind: 'pod',
      image: 'busybox',
      vcpuCount: 2,
      memoryInGb: 4,
      containerDiskInGb: 0,
      dataCenterIds: [],
      interruptible: false,
    });
    expect(pod.metadata?.annotations).toBeUndefined();
    expect(pod.spec).toEqual({
      containers: [
        {
          name: 'workload',
          image: 'busybox',
          resources: { requests: { cpu: '2', memory: '4Gi' }, limits: { cpu: '2', memory: '4Gi' } },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      priorityClassName: 'runplane-on-demand',
      enableServiceLinks: false,
      automountServiceAccountToken: false,
    });
  });

  it('keeps the data-center term alone for a CPU pod pinned to regions, and mounts scratch space', () => {
    const pod = buildWorkloadPod({
      ...gpuPod,
      gpu: null,
      nodeSelector: {},
      dataCenterIds: ['EU-RO-1'],
      volume: { mountPath: '/scratch', scratchSizeGb: 20 },
      dockerEntrypoint: [],
      dockerStartCmd: [],
    });
    expect(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms).toEqual(
      [{ matchExpressions: [{ key: 'topology.kubernetes.io/region', operator: 'In', values: ['EU-RO-1'] }] }],
    );
    expect(pod.spec?.tolerations).toBeUndefined();
    expect(pod.spec?.nodeSelector).toBeUndefined();
    expect(pod.spec?.volumes).toEqual([{ name: 'workspace', emptyDir: { sizeLimit: '20Gi' } }]);
    expect(pod.spec?.containers[0]?.volumeMounts).toEqual([{ name: 'workspace', mountPath: '/scratch' }]);
    expect(pod.spec?.containers[0]?.command).toBeUndefined();
    expect(pod.spec?.containers[0]?.args).toBeUndefined();
    expect(pod.spec?.containers[0]?.resources?.limits?.['nvidia.com/gpu']).toBeUndefined();
  });
});
