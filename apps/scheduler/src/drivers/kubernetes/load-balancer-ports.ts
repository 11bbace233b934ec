import type { V1Pod } from '@runplane/kube';
import type { LoadBalancerPorts } from '../compute-driver';

/** Annotations that tell, from the pod alone, where a load-balancing worker's servers listen. */
export const LB_PORT_ANNOTATION = 'runplane.io/lb-port';
export const LB_HEALTH_PORT_ANNOTATION = 'runplane.io/lb-health-port';

/** Names of the container ports of a load-balancing worker's server and health server. */
const PORT_NAMES = { serve: 'rp-serve', health: 'rp-health' } as const;

/**
 * Declares a load-balancing worker's ports on its pod: a containerPort for its server and, when it differs, one for its
 * health server (unless the template already declares that port), and the annotations {@link lbAddresses} reads.
 * Returns a new pod; the job-router reaches the worker at its pod IP.
 */
export function withLoadBalancerPorts(pod: V1Pod, ports: LoadBalancerPorts): V1Pod {
  const [container, ...others] = pod.spec?.containers ?? [];
  if (!container || !pod.spec) return pod;
  const declared = [...(container.ports ?? [])];
  const add = (name: string, containerPort: number): void => {
    if (!declared.some((port) => port.containerPort === containerPort && (port.protocol ?? 'TCP') === 'TCP'))
      declared.push({ name, containerPort, protocol: 'TCP' });
  };
  add(PORT_NAMES.serve, ports.port);
  add(PORT_NAMES.health, ports.healthPort);
  return {
    ...pod,
    metadata: {
      ...pod.metadata,
      annotations: {
        ...pod.metadata?.annotations,
        [LB_PORT_ANNOTATION]: String(ports.port),
        [LB_HEALTH_PORT_ANNOTATION]: String(ports.healthPort),
      },
    },
    spec: { ...pod.spec, containers: [{ ...container, ports: declared }, ...others] },
  };
}

/** "<podIP>:<port>" of a load-balancing worker's servers, once the pod has an IP; nulls for other pods. */
export function lbAddresses(pod: V1Pod): { serviceAddress: string | null; healthAddress: string | null } {
  const ip = pod.status?.podIP;
  const port = pod.metadata?.annotations?.[LB_PORT_ANNOTATION];
  const healthPort = pod.metadata?.annotations?.[LB_HEALTH_PORT_ANNOTATION];
  if (!ip || !port || !healthPort) return { serviceAddress: null, healthAddress: null };
  // An IPv6 pod IP is bracketed, as in a URL's authority.
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return { serviceAddress: `${host}:${port}`, healthAddress: `${host}:${healthPort}` };
}
