import type { V1Node, V1Pod } from '@runplane/kube';
import { foreignGpuUse, machineOf, workloadStatusOf } from './cluster-view';

const NS = 'runplane';
const node = (overrides: Partial<V1Node> = {}): V1Node => ({
  metadata: {
    name: 'gpu-0',
    labels: {
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
      'nvidia.com/gpu.count': '8',
      'topology.kubernetes.io/region': 'EU-RO-1',
    },
  },
  spec: { taints: [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }] },
  status: {
    capacity: { cpu: '224', memory: '2Ti', 'nvidia.com/gpu': '8' },
    allocatable: { cpu: '224', memory: '2Ti', 'nvidia.com/gpu': '8' },
    conditions: [{ type: 'Ready', status: 'True' }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.7' }],
  },
  ...overrides,
});
const RUNPLANE_LABELS = { 'app.kubernetes.io/managed-by': 'runplane' };
/** A pod bound to gpu-0 holding `gpus` GPUs. */
const gpuPod = (
  name: string,
  namespace: string,
  gpus: string,
  { labels = {}, phase = 'Running' }: { labels?: Record<string, string>; phase?: string } = {},
): V1Pod => ({
  metadata: { name, namespace, labels },
  spec: { nodeName: 'gpu-0', containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': gpus } } }] },
  status: { phase },
});
const workload = (status: V1Pod['status'], extra: Partial<V1Pod['metadata']> = {}): V1Pod => ({
  metadata: {
    name: 'rp-p1',
    namespace: NS,
    labels: { 'app.kubernetes.io/managed-by': 'runplane', 'runplane.io/pod-id': 'p1' },
    annotations: { 'runplane.io/generation': '3' },
    ...extra,
  },
  spec: { nodeName: 'gpu-0', nodeSelector: { 'kubernetes.io/hostname': 'gpu-0' }, containers: [{ name: 'workload' }] },
  status,
});
const running: V1Pod['status'] = {
  phase: 'Running',
  startTime: new Date('2026-11-21T08:00:00Z'),
  containerStatuses: [
    {
      name: 'workload',
      image: 'i',
      imageID: '',
      ready: true,
      restartCount: 0,
      state: { running: { startedAt: new Date('2026-11-21T08:00:05Z') } },
    },
  ],
};

describe('machineOf', () => {
  it('mirrors a GPU node: product, region, GPUs offered minus those foreign pods hold', () => {
    expect(machineOf(node(), 3)).toEqual({
      name: 'gpu-0',
      gpuProduct: 'NVIDIA-H100-80GB-HBM3',
      gpuCount: 5,
      cpuCount: 224,
      memoryInGb: 2048,
      dataCenterId: 'EU-RO-1',
      secureCloud: true,
      cpuFlavorIds: [],
      ready: true,
      labels: node().metadata?.labels,
    });
  });

  it('is not ready when NotReady or cordoned; community nodes are not secure cloud', () => {
    const notReady = node({ status: { ...node().status, conditions: [{ type: 'Ready', status: 'False' }] } });
    expect(machineOf(notReady, 0).ready).toBe(false);
    expect(machineOf(node({ spec: { unschedulable: true } }), 0).ready).toBe(false);
    const community = node({ metadata: { name: 'c', labels: { 'runplane.io/cloud-type': 'community' } } });
    expect(machineOf(community, 0)).toMatchObject({ secureCloud: false, gpuProduct: null, gpuCount: 0 });
  });
});

describe('foreignGpuUse', () => {
  it('counts GPUs of bound, unfinished pods that are not this driver’s own workloads', () => {
    const pods = [
      gpuPod('other', 'team-a', '2'),
      gpuPod('done', 'team-a', '4', { phase: 'Succeeded' }),
      gpuPod('rp-p1', NS, '1', { labels: { ...RUNPLANE_LABELS, 'runplane.io/pod-id': 'p1' } }),
      gpuPod('rp-p2', 'other-runplane', '1', { labels: { ...RUNPLANE_LABELS, 'runplane.io/pod-id': 'p2' } }),
    ];
    expect(foreignGpuUse(pods, NS)).toEqual(new Map([['gpu-0', 3]]));
  });
});

describe('workloadStatusOf', () => {
  const context = { node: node(), portService: { spec: { ports: [{ port: 22, nodePort: 31022 }] } }, pulledAt: null };

  it('reads a running workload with its generation, ports and the node address', () => {
    expect(workloadStatusOf(workload(running), context)).toEqual({
      podId: 'p1',
      generation: 3,
      phase: 'RUNNING',
      startedAt: new Date('2026-11-21T08:00:05Z'),
      finishedAt: null,
      machineName: 'gpu-0',
      publicIp: '10.0.0.7',
      portMappings: { '22': 31022 },
      preempted: false,
      reason: null,
      serviceAddress: null,
      healthAddress: null,
      coldStart: { scheduledAt: null, imagePulledAt: null },
    });
  });

  it("gives a load-balancing worker's addresses at its pod IP once it has one, and none once it stopped", () => {
    const annotations = {
      'runplane.io/generation': '3',
      'runplane.io/lb-port': '8000',
      'runplane.io/lb-health-port': '8001',
    };
    expect(workloadStatusOf(workload(running, { annotations }), context)).toMatchObject({
      serviceAddress: null,
      healthAddress: null,
    });
    expect(workloadStatusOf(workload({ ...running, podIP: '10.244.0.9' }, { annotations }), context)).toMatchObject({
      phase: 'RUNNING',
      serviceAddress: '10.244.0.9:8000',
      healthAddress: '10.244.0.9:8001',
    });
    expect(workloadStatusOf(workload({ ...running, podIP: 'fd00::9' }, { annotations }), context)).toMatchObject({
      serviceAddress: '[fd00::9]:8000',
    });
    const deleting = workload({ ...running, podIP: '10.244.0.9' }, { annotations, deletionTimestamp: new Date() });
    expect(workloadStatusOf(deleting, context)).toMatchObject({ serviceAddress: null, healthAddress: null });
    // Other pods with an IP have no addresses of this kind.
    expect(workloadStatusOf(workload({ ...running, podIP: '10.244.0.9' }), context).serviceAddress).toBeNull();
  });

  it('fails a workload whose node is gone or not ready', () => {
    expect(
      workloadStatusOf(workload(running), { node: undefined, portService: undefined, pulledAt: null }),
    ).toMatchObject({
      phase: 'FAILED',
      reason: 'Machine gpu-0 is gone',
      preempted: false,
    });
    const notReady = node({
      status: {
        ...node().status,
        conditions: [{ type: 'Ready', status: 'Unknown', message: 'Kubelet stopped posting node status.' }],
      },
    });
    expect(workloadStatusOf(workload(running), { node: notReady, portService: undefined, pulledAt: null }).reason).toBe(
      'Machine gpu-0 is not ready: Kubelet stopped posting node status.',
    );
  });

  it('reports preemption, crash loops and deletion', () => {
    const preempted = {
      ...running,
      conditions: [
        {
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'PreemptionByScheduler',
          message: 'default-scheduler: preempting to accommodate a higher priority pod',
        },
      ],
    };
    expect(workloadStatusOf(workload(preempted), context)).toMatchObject({
      phase: 'FAILED',
      preempted: true,
      reason: expect.stringMatching(/preempting/),
      portMappings: {},
    });
    const crashing = {
      ...running,
      containerStatuses: [
        {
          name: 'workload',
          image: 'i',
          imageID: '',
          ready: false,
          restartCount: 4,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 2 } },
        },
      ],
    };
    expect(workloadStatusOf(workload(crashing), context)).toMatchObject({
      phase: 'FAILED',
      reason: 'CrashLoopBackOff after 4 restarts (exit code 2)',
    });
    const deleting = workload(running, { deletionTimestamp: new Date('2026-11-21T09:00:00Z') });
    expect(workloadStatusOf(deleting, context)).toMatchObject({
      phase: 'EXITED',
      finishedAt: new Date('2026-11-21T09:00:00Z'),
      publicIp: null,
    });
  });

  it('keeps a pending unschedulable workload CREATING with the scheduler reason', () => {
    const pending = {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
        },
      ],
    };
    const pod = workload(pending);
    pod.spec = { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: undefined };
    expect(workloadStatusOf(pod, { node: undefined, portService: undefined, pulledAt: null })).toMatchObject({
      phase: 'CREATING',
      machineName: 'gpu-0',
      reason: 'Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.',
    });
  });
});
