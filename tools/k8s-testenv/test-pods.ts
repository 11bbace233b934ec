import { GPU_PRODUCT_LABEL, GPU_RESOURCE, NODE_POOL_LABEL } from '@runplane/testing';

/** The parts of a Pod the Kubernetes test environment's specs read. */
export interface Pod {
  metadata: { name: string; namespace: string };
  spec: { nodeName?: string };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/**
 * A pod as a GPU cloud places it: `gpus` × nvidia.com/gpu in limits, required node affinity on the
 * GFD product label, the toleration for the GPU taint, and the test's own pool label.
 */
export function gpuPod(
  name: string,
  opts: { poolLabel: string; product: string; gpus: number },
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      nodeSelector: { [NODE_POOL_LABEL]: opts.poolLabel },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: GPU_PRODUCT_LABEL, operator: 'In', values: [opts.product] }] },
            ],
          },
        },
      },
      tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }],
      containers: [
        { name: 'main', image: 'runpod/base:0.6.2', resources: { limits: { [GPU_RESOURCE]: String(opts.gpus) } } },
      ],
    },
  };
}
