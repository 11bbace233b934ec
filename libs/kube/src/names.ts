/**
 * Deterministic object names derived from Runplane ids, so a restarted scheduler finds (and never duplicates) what
 * it created. Ids are lowercase letters and digits; the `rp-` prefix keeps names valid where Kubernetes needs a
 * leading letter (Service names are DNS-1035 labels).
 */
export const kubeNames = {
  /** The workload pod of a v1 Pod or worker. */
  pod: (podId: string): string => `rp-${podId}`,
  /** NodePort Service for a pod's tcp/udp ports. */
  portService: (podId: string): string => `rp-${podId}-ports`,
  /** ClusterIP Service the HTTP proxy uses for a pod's http ports. */
  httpService: (podId: string): string => `rp-${podId}-http`,
  /** PVC backing a network volume. */
  volumeClaim: (volumeId: string): string => `rp-vol-${volumeId}`,
  /** dockerconfigjson Secret of a container registry auth. */
  pullSecret: (registryAuthId: string): string => `rp-auth-${registryAuthId}`,
};
