import type { PodDto } from '@runplane/contracts';

/** One entry of a running Pod's `runtime.ports`, as runpodctl reads it for SSH details. */
export interface LegacyRuntimePort {
  ip: string | null;
  isIpPublic: boolean;
  privatePort: number;
  publicPort: number;
  type: string;
}

/**
 * A port of the Pod's `ports` ("22/tcp", "8888/http") as RunPod reports it at runtime: a TCP port published on the
 * machine's public IP is `isIpPublic` with its mapped port; HTTP ports go through the proxy on their own number.
 */
function runtimePort(spec: string, pod: PodDto): LegacyRuntimePort | null {
  const [number, protocol = 'http'] = spec.split('/');
  const privatePort = Number(number);
  if (!Number.isInteger(privatePort)) return null;
  const mapped = pod.portMappings?.[String(privatePort)];
  if (protocol === 'tcp' && mapped !== undefined && pod.publicIp) {
    return { ip: pod.publicIp, isIpPublic: true, privatePort, publicPort: mapped, type: 'tcp' };
  }
  return { ip: null, isIpPublic: false, privatePort, publicPort: privatePort, type: protocol };
}

function uptimeSeconds(pod: PodDto, now: Date): number {
  if (pod.desiredStatus !== 'RUNNING' || pod.lastStartedAt === null) return 0;
  return Math.max(0, Math.floor((now.getTime() - Date.parse(pod.lastStartedAt)) / 1000));
}

/** `runtime`: null until the Pod runs (runpodctl and runpod-python read that as "not up yet"). */
function runtime(pod: PodDto, now: Date) {
  if (pod.desiredStatus !== 'RUNNING' || pod.lastStartedAt === null) return null;
  const ports = pod.ports.map((spec) => runtimePort(spec, pod)).filter((p): p is LegacyRuntimePort => p !== null);
  return { uptimeInSeconds: uptimeSeconds(pod, now), ports };
}

/**
 * A Pod in the shape RunPod's GraphQL `Pod` has: `env` a list of "K=V" strings, `ports` one comma-separated string,
 * `dockerArgs` the start command as one string, `podType` INTERRUPTABLE or RESERVED.
 */
export function legacyPod(pod: PodDto, now: Date) {
  return {
    id: pod.id,
    name: pod.name,
    imageName: pod.imageName,
    desiredStatus: pod.desiredStatus,
    costPerHr: pod.costPerHr,
    containerDiskInGb: pod.containerDiskInGb,
    volumeInGb: pod.volumeInGb,
    volumeMountPath: pod.volumeMountPath,
    gpuCount: pod.gpuCount,
    memoryInGb: pod.memoryInGb,
    vcpuCount: pod.vcpuCount,
    dockerArgs: pod.dockerStartCmd.join(' '),
    dockerId: null,
    env: Object.entries(pod.env).map(([key, value]) => `${key}=${value}`),
    lastStatusChange: pod.lastStatusChange,
    machineId: pod.machineId,
    podType: pod.interruptible ? 'INTERRUPTABLE' : 'RESERVED',
    port: null,
    ports: pod.ports.join(','),
    uptimeSeconds: uptimeSeconds(pod, now),
    runtime: runtime(pod, now),
    machine: {
      gpuDisplayName: pod.machine?.gpuDisplayName ?? pod.gpu?.displayName ?? null,
      location: pod.machine?.location ?? pod.dataCenterId,
      podHostId: pod.machineId === null ? null : pod.id,
    },
  };
}
