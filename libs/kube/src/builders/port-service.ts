import type { V1Service } from '@kubernetes/client-node';
import { baseLabels, LABELS } from '../labels';
import { parsePorts, type ExposedPort } from './ports';

/** The ports of one workload pod to publish. */
export interface PortServiceInput {
  name: string;
  namespace: string;
  podId: string;
  accountId: string;
  /** RunPod port specs, e.g. ["8888/http", "22/tcp"]. */
  ports: readonly string[];
}

function service(input: PortServiceInput, ports: ExposedPort[], type: 'NodePort' | 'ClusterIP'): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels: { ...baseLabels(input.accountId), [LABELS.podId]: input.podId },
    },
    spec: {
      type,
      selector: { [LABELS.podId]: input.podId },
      ports: ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.port, protocol: p.transport })),
      // Traffic to a NodePort is only accepted on the pod's own node, which is the publicIp Runplane reports.
      ...(type === 'NodePort' ? { externalTrafficPolicy: 'Local' } : {}),
    },
  };
}

/**
 * NodePort Service for the pod's tcp and udp ports: the apiserver allocates a node port per entry, which becomes
 * `portMappings` (e.g. {"22": 31022}) together with the node's address as `publicIp`. Null when there are none.
 * http ports are not published here: like RunPod's proxy they are reached by name through buildHttpService.
 */
export function buildPortService(input: PortServiceInput): V1Service | null {
  const ports = parsePorts(input.ports).filter((p) => p.protocol !== 'http');
  return ports.length > 0 ? service(input, ports, 'NodePort') : null;
}

/** ClusterIP Service for the pod's http ports, the upstream of the HTTP proxy (`{podId}-{port}`). Null when none. */
export function buildHttpService(input: PortServiceInput): V1Service | null {
  const ports = parsePorts(input.ports).filter((p) => p.protocol === 'http');
  return ports.length > 0 ? service(input, ports, 'ClusterIP') : null;
}
