import type { V1Node, V1Service } from '@kubernetes/client-node';

/** `publicIp` and `portMappings` of a Pod on the wire. */
export interface PublishedPorts {
  publicIp: string | null;
  /** Internal port -> public (node) port, e.g. {"22": 31022}; null when nothing is published. */
  portMappings: Record<string, number> | null;
}

/** The address clients reach a node on: its ExternalIP, else its InternalIP. */
export function nodeAddress(node: V1Node | null | undefined): string | null {
  const addresses = node?.status?.addresses ?? [];
  return (
    addresses.find((a) => a.type === 'ExternalIP')?.address ??
    addresses.find((a) => a.type === 'InternalIP')?.address ??
    null
  );
}

/** Read the node ports the apiserver allocated on a pod's NodePort Service, with the address of the pod's node. */
export function readPublishedPorts(
  service: V1Service | null | undefined,
  node: V1Node | null | undefined,
): PublishedPorts {
  const mappings: Record<string, number> = {};
  for (const port of service?.spec?.ports ?? []) {
    if (port.nodePort) mappings[String(port.port)] = port.nodePort;
  }
  const published = Object.keys(mappings).length > 0;
  return { publicIp: published ? nodeAddress(node) : null, portMappings: published ? mappings : null };
}
