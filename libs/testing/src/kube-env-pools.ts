import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { KWOK_NODE_ANNOTATION } from './kube-env-args';

/**
 * Fake GPU node pools for Kubernetes tests. Nodes look like GPU nodes labelled by NVIDIA GPU Feature
 * Discovery and are run by kwok. Nodes are cluster-scoped and many test files share one control
 * plane, so every node carries its test file's pool label and a test selects only its own nodes.
 */

/** Label naming the test (file) a node belongs to; select on it to stay on your own nodes. */
export const NODE_POOL_LABEL = 'runplane.io/node-pool';
/** Label naming the pool (from the pools file) a node was made from. */
export const POOL_NAME_LABEL = 'runplane.io/pool';
/** The extended resource of NVIDIA's device plugin, also the key of the GPU node taint. */
export const GPU_RESOURCE = 'nvidia.com/gpu';
/** Label a node with `true` and kwok reports it NotReady (reason/message from its annotations): a lost node. */
export const KWOK_NODE_NOT_READY_LABEL = 'node-not-ready.stage.kwok.x-k8s.io';
/**
 * Label a running pod with `true` and kwok fails its containers (phase Failed; exit code from the
 * annotation `pod-container-running-failed.stage.kwok.x-k8s.io/exit-code`, default 1).
 */
export const KWOK_POD_FAILED_LABEL = 'pod-container-running-failed.stage.kwok.x-k8s.io';
/** GFD label with the sanitised product name, e.g. NVIDIA-H100-80GB-HBM3. */
export const GPU_PRODUCT_LABEL = 'nvidia.com/gpu.product';

const labelValue = z
  .string()
  .regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, 'must be a valid Kubernetes label value');
const quantity = z.union([
  z.string().regex(/^\d+(\.\d+)?(m|[KMGTPE]i?)?$/, 'must be a Kubernetes quantity'),
  z.number().positive(),
]);

const nodePoolSchema = z.strictObject({
  /** Pool name, part of node names. */
  name: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be lowercase letters, digits and dashes'),
  /** Runplane data center id, used as region and zone. */
  dataCenterId: labelValue,
  count: z.number().int().positive(),
  cpu: quantity,
  memory: quantity,
  pods: z.number().int().positive().default(110),
  gpu: z
    .strictObject({
      /** Catalog GPU type id (the NVML model name), e.g. "NVIDIA H100 80GB HBM3". */
      type: z.string().min(1),
      count: z.number().int().positive(),
      memoryMiB: z.number().int().positive(),
    })
    .optional(),
  labels: z.record(z.string(), labelValue).default({}),
});

/** One pool: `count` identical nodes in one data center, with or without GPUs. */
export type NodePoolSpec = z.input<typeof nodePoolSchema>;
type NodePool = z.output<typeof nodePoolSchema>;

const poolsFileSchema = z.strictObject({ pools: z.array(nodePoolSchema).min(1) });

/** tools/k8s-testenv/pools.yaml: the default pools (H100 in EU-RO-1, RTX 4090 in US-TX-3, CPU nodes). */
export const DEFAULT_NODE_POOLS_FILE = path.resolve(__dirname, '../../../tools/k8s-testenv/pools.yaml');

/** Reads and validates a pools YAML file (`pools: [...]`). */
export function loadNodePools(file = DEFAULT_NODE_POOLS_FILE): NodePoolSpec[] {
  const result = poolsFileSchema.safeParse(parse(readFileSync(file, 'utf8')));
  if (!result.success) throw new Error(`${file}: ${z.prettifyError(result.error)}`);
  return result.data.pools;
}

/**
 * GFD's `nvidia.com/gpu.product` for an NVML model name: characters outside [A-Za-z0-9-_. ] are
 * dropped and spaces become dashes ("NVIDIA H100 80GB HBM3" → "NVIDIA-H100-80GB-HBM3").
 */
export function gfdProductName(modelName: string): string {
  return modelName
    .replace(/[^A-Za-z0-9\-_. ]/g, '')
    .trim()
    .replace(/ /g, '-');
}

/** Kubernetes node name for node `index` of a pool, unique per pool label. */
export function nodeName(poolLabel: string, pool: Pick<NodePoolSpec, 'name'>, index: number): string {
  return `${poolLabel}-${pool.name}-${index}`.toLowerCase().replace(/[^a-z0-9.-]/g, '-');
}

/** Checks a pool label is usable as a label value and in node names. */
export function assertPoolLabel(poolLabel: string): void {
  if (!/^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$/.test(poolLabel)) {
    throw new Error(`pool label "${poolLabel}" must be 1-42 lowercase letters, digits and dashes`);
  }
}

/** The kwok Node object for one node of a pool (pure; kwok fills conditions, addresses and nodeInfo). */
export function buildPoolNode(spec: NodePoolSpec, index: number, poolLabel: string): Record<string, unknown> {
  const pool: NodePool = nodePoolSchema.parse(spec);
  const name = nodeName(poolLabel, pool, index);
  const resources: Record<string, string> = {
    cpu: String(pool.cpu),
    memory: String(pool.memory),
    pods: String(pool.pods),
  };
  const labels: Record<string, string> = {
    ...pool.labels,
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    type: 'kwok',
    [NODE_POOL_LABEL]: poolLabel,
    [POOL_NAME_LABEL]: pool.name,
    'topology.kubernetes.io/region': pool.dataCenterId,
    'topology.kubernetes.io/zone': pool.dataCenterId,
  };
  const taints: { key: string; effect: string }[] = [];
  if (pool.gpu !== undefined) {
    resources[GPU_RESOURCE] = String(pool.gpu.count);
    labels[GPU_PRODUCT_LABEL] = gfdProductName(pool.gpu.type);
    labels['nvidia.com/gpu.count'] = String(pool.gpu.count);
    labels['nvidia.com/gpu.memory'] = String(pool.gpu.memoryMiB);
    labels['nvidia.com/gpu.present'] = 'true';
    taints.push({ key: GPU_RESOURCE, effect: 'NoSchedule' });
  }
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels, annotations: { [KWOK_NODE_ANNOTATION]: 'fake' } },
    spec: { taints },
    status: { capacity: resources, allocatable: resources },
  };
}
