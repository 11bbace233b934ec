import type { V1Node } from '@kubernetes/client-node';
import { readNodeMachine } from './node-machine';

const h100: V1Node = {
  metadata: {
    name: 'gpu-h100-0',
    labels: {
      'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
      'nvidia.com/gpu.count': '8',
      'nvidia.com/gpu.memory': '81559',
      'topology.kubernetes.io/region': 'EU-RO-1',
      'topology.kubernetes.io/zone': 'EU-RO-1a',
    },
  },
  spec: { taints: [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }] },
  status: {
    capacity: { cpu: '128', memory: '2113929216Ki', 'nvidia.com/gpu': '8', pods: '110' },
    allocatable: { cpu: '127500m', memory: '2013265920Ki', 'nvidia.com/gpu': '7', pods: '110' },
    conditions: [{ type: 'Ready', status: 'True' }],
  },
};

describe('readNodeMachine', () => {
  it('mirrors GFD facts, topology, capacity and readiness of a GPU node', () => {
    expect(readNodeMachine(h100)).toEqual({
      name: 'gpu-h100-0',
      gpuProduct: 'NVIDIA-H100-80GB-HBM3',
      gpuCount: 8,
      gpuMemoryMiB: 81559,
      gpuAllocatable: 7,
      region: 'EU-RO-1',
      zone: 'EU-RO-1a',
      cpuCount: 127,
      memoryInGb: 1920,
      ready: true,
      schedulable: true,
      labels: h100.metadata?.labels,
      capacity: h100.status?.capacity,
      allocatable: h100.status?.allocatable,
    });
  });

  it('reads a CPU node without GFD labels, taking the GPU count from capacity when the label is missing', () => {
    const cpu = readNodeMachine({ metadata: { name: 'cpu-0' }, status: { capacity: { cpu: '16', memory: '64Gi' } } });
    expect(cpu).toMatchObject({
      gpuProduct: null,
      gpuCount: 0,
      gpuMemoryMiB: null,
      gpuAllocatable: 0,
      region: null,
      zone: null,
      cpuCount: 16,
      memoryInGb: 64,
      ready: false,
    });
    const unlabelled = readNodeMachine({ metadata: { name: 'g' }, status: { capacity: { 'nvidia.com/gpu': '4' } } });
    expect(unlabelled.gpuCount).toBe(4);
  });

  it('is not schedulable when cordoned or tainted with something workloads do not tolerate', () => {
    expect(readNodeMachine({ ...h100, spec: { unschedulable: true } }).schedulable).toBe(false);
    const tainted = { ...h100, spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] } };
    expect(readNodeMachine(tainted).schedulable).toBe(false);
    const preferOnly = { ...h100, spec: { taints: [{ key: 'maintenance', effect: 'PreferNoSchedule' }] } };
    expect(readNodeMachine(preferOnly).schedulable).toBe(true);
  });

  it('is not ready when the Ready condition is False or Unknown', () => {
    const notReady = { ...h100, status: { ...h100.status, conditions: [{ type: 'Ready', status: 'Unknown' }] } };
    expect(readNodeMachine(notReady).ready).toBe(false);
  });
});
