import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { assertPoolLabel, buildPoolNode, gfdProductName, loadNodePools, nodeName } from './kube-env-pools';

describe('kwok node pools', () => {
  it('sanitises NVML model names like GPU Feature Discovery', () => {
    expect(gfdProductName('NVIDIA H100 80GB HBM3')).toBe('NVIDIA-H100-80GB-HBM3');
    expect(gfdProductName('NVIDIA GeForce RTX 4090')).toBe('NVIDIA-GeForce-RTX-4090');
    expect(gfdProductName('NVIDIA A100-SXM4-80GB')).toBe('NVIDIA-A100-SXM4-80GB');
    expect(gfdProductName('Tesla T4 (rev. a1)')).toBe('Tesla-T4-rev.-a1');
  });

  it('builds a GPU node with GFD labels, topology, capacity and the GPU taint', () => {
    const node = buildPoolNode(
      {
        name: 'h100',
        dataCenterId: 'EU-RO-1',
        count: 4,
        cpu: '224',
        memory: '2Ti',
        gpu: { type: 'NVIDIA H100 80GB HBM3', count: 8, memoryMiB: 81559 },
      },
      2,
      'file-a',
    );
    expect(node).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: 'file-a-h100-2',
        annotations: { 'kwok.x-k8s.io/node': 'fake' },
        labels: {
          'kubernetes.io/hostname': 'file-a-h100-2',
          'kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          type: 'kwok',
          'runplane.io/node-pool': 'file-a',
          'runplane.io/pool': 'h100',
          'topology.kubernetes.io/region': 'EU-RO-1',
          'topology.kubernetes.io/zone': 'EU-RO-1',
          'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
          'nvidia.com/gpu.count': '8',
          'nvidia.com/gpu.memory': '81559',
          'nvidia.com/gpu.present': 'true',
        },
      },
      spec: { taints: [{ key: 'nvidia.com/gpu', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '224', memory: '2Ti', pods: '110', 'nvidia.com/gpu': '8' },
        allocatable: { cpu: '224', memory: '2Ti', pods: '110', 'nvidia.com/gpu': '8' },
      },
    });
  });

  it('builds CPU nodes without GPU resources, labels or taints', () => {
    const node = buildPoolNode(
      { name: 'cpu', dataCenterId: 'US-TX-3', count: 1, cpu: 64, memory: '256Gi' },
      0,
      'file-a',
    ) as {
      metadata: { labels: Record<string, string> };
      spec: { taints: unknown[] };
      status: { capacity: Record<string, string> };
    };
    expect(Object.keys(node.metadata.labels).filter((key) => key.startsWith('nvidia.com/'))).toEqual([]);
    expect(node.spec.taints).toEqual([]);
    expect(node.status.capacity).toEqual({ cpu: '64', memory: '256Gi', pods: '110' });
  });

  it('names nodes per pool label and rejects labels that cannot be label values', () => {
    expect(nodeName('file-a', { name: 'h100' }, 0)).not.toBe(nodeName('file-b', { name: 'h100' }, 0));
    expect(() => assertPoolLabel('File A')).toThrow(
      'pool label "File A" must be 1-42 lowercase letters, digits and dashes',
    );
    expect(() => assertPoolLabel('x'.repeat(43))).toThrow('must be 1-42');
    expect(() => assertPoolLabel('file-a')).not.toThrow();
  });

  it('loads the default pools file and explains what is wrong with a bad one', () => {
    const pools = loadNodePools();
    expect(pools.map((pool) => [pool.name, pool.count, pool.gpu?.count ?? 0])).toEqual([
      ['h100', 4, 8],
      ['rtx4090', 8, 1],
      ['cpu', 2, 0],
    ]);
    const bad = path.join(mkdtempSync(path.join(tmpdir(), 'pools-')), 'pools.yaml');
    writeFileSync(
      bad,
      'pools:\n  - name: H100\n    dataCenterId: EU-RO-1\n    count: 0\n    cpu: "8"\n    memory: lots\n',
    );
    expect(() => loadNodePools(bad)).toThrow(
      /at pools\[0\]\.name[\s\S]*at pools\[0\]\.count[\s\S]*must be a Kubernetes quantity\n\s+→ at pools\[0\]\.memory/,
    );
  });
});
