/** One exposed port of a workload, parsed from RunPod's `8888/http` / `22/tcp` notation. */
export interface ExposedPort {
  port: number;
  /** `http` ports are reached through the HTTP proxy; `tcp` and `udp` ports through a NodePort. */
  protocol: 'http' | 'tcp' | 'udp';
  /** Kubernetes transport protocol (http is TCP). */
  transport: 'TCP' | 'UDP';
  /** Port name, unique per port and protocol and at most 15 characters (e.g. `http-8888`). */
  name: string;
}

const PORT_SPEC = /^([1-9][0-9]{0,4})\/(http|tcp|udp)$/;

/**
 * Parse RunPod port specs ("8888/http", "22/tcp"; a single comma-separated string is accepted too). Duplicates are
 * dropped; anything malformed throws, since the API validated the list before it got here.
 */
export function parsePorts(specs: readonly string[] | string | undefined): ExposedPort[] {
  const list = typeof specs === 'string' ? specs.split(',') : (specs ?? []);
  const seen = new Set<string>();
  const ports: ExposedPort[] = [];
  for (const raw of list) {
    const spec = raw.trim();
    if (spec === '') continue;
    const match = PORT_SPEC.exec(spec);
    const port = Number(match?.[1]);
    const protocol = match?.[2] as ExposedPort['protocol'] | undefined;
    if (!protocol || port > 65535)
      throw new RangeError(`Invalid port spec "${spec}" (expected e.g. 8888/http or 22/tcp)`);
    if (seen.has(spec)) continue;
    seen.add(spec);
    ports.push({ port, protocol, transport: protocol === 'udp' ? 'UDP' : 'TCP', name: `${protocol}-${port}` });
  }
  return ports;
}
