import type { Pod } from '@runplane/db';
import type { PagedPod } from '@runplane/workloads';
import { joinArgs } from '../shared/command-line';
import type { PodActionV2, PodStatusV2, PodV2 } from './pods.schemas';

type Observed = Pod['observedPhase'];

const OBSERVED: Record<Observed, PodStatusV2> = {
  PENDING: 'PROVISIONING',
  CREATING: 'STARTING',
  RUNNING: 'RUNNING',
  STOPPING: 'EXITED',
  EXITED: 'EXITED',
  FAILED: 'ERROR',
  TERMINATED: 'TERMINATED',
  UNKNOWN: 'ERROR',
};

/**
 * The v2 status: what the scheduler last observed while the Pod should run; EXITED as soon as it was stopped (the
 * container is stopping), TERMINATED once deleted.
 */
export function podStatusV2(row: Pick<Pod, 'desiredStatus' | 'observedPhase'>): PodStatusV2 {
  if (row.desiredStatus === 'TERMINATED') return 'TERMINATED';
  if (row.desiredStatus === 'EXITED') return 'EXITED';
  return OBSERVED[row.observedPhase];
}

/** The actions valid in a status (RunPod's `actions`): anything else answers 409. */
export function podActionsV2(status: PodStatusV2): PodActionV2[] {
  switch (status) {
    case 'RUNNING':
      return ['stop', 'restart', 'terminate'];
    case 'PROVISIONING':
    case 'STARTING':
      return ['stop', 'terminate'];
    case 'EXITED':
    case 'ERROR':
      return ['start', 'terminate'];
    case 'TERMINATED':
      return [];
  }
}

function stringMap(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

function portMap(value: unknown): Record<string, number> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, number] => Number.isInteger(e[1])));
}

/** Published ports as RunPod's runtime.ports: each declared port with its public port once running. */
function runtimePorts(row: PagedPod): NonNullable<PodV2['runtime']>['ports'] {
  const published = portMap(row.portMappings);
  return row.ports.map((port) => {
    const [number = '0', type = 'tcp'] = port.split('/');
    return { private: Number(number), public: published[number] ?? null, type, ip: row.publicIp };
  });
}

function sshOf(row: PagedPod): PodV2['ssh'] {
  const port = portMap(row.portMappings)['22'];
  const direct =
    row.publicIp && port !== undefined
      ? { host: row.publicIp, port, username: 'root', command: `ssh root@${row.publicIp} -p ${port}` }
      : null;
  return { proxy: null, direct };
}

function mountsOf(row: PagedPod): PodV2['mounts'] {
  if (row.networkVolumeId) return { network: [{ volumeId: row.networkVolumeId, path: row.volumeMountPath }] };
  if (row.volumeInGb > 0) return { persistent: { size: row.volumeInGb, path: row.volumeMountPath } };
  return {};
}

function computeOf(row: PagedPod): Pick<PodV2, 'gpu' | 'cpu'> {
  if (row.gpuTypeId !== null) {
    return { gpu: { id: row.gpuTypeId, count: row.gpuCount, vcpuCount: row.vcpuCount, memory: row.memoryInGb } };
  }
  if (row.cpuFlavorId !== null)
    return { cpu: { id: row.cpuFlavorId, vcpuCount: row.vcpuCount, memory: row.memoryInGb } };
  return {};
}

/** A Pod row as v2's Pod; `now` dates the uptime of a running Pod. */
export function toPodV2(row: PagedPod, now: Date): PodV2 {
  const status = podStatusV2(row);
  const running = status === 'RUNNING';
  return {
    id: row.id,
    name: row.name,
    image: row.image,
    args: joinArgs(row.dockerStartCmd),
    disk: row.containerDiskInGb,
    ports: row.ports,
    env: stringMap(row.env),
    registry: row.containerRegistryAuthId,
    status,
    actions: podActionsV2(status),
    mounts: mountsOf(row),
    ...computeOf(row),
    cloud: row.cloudType,
    dataCenterId: row.dataCenterId,
    cudaVersion: null,
    ssh: sshOf(row),
    template: row.templateId,
    cost: Number(row.costPerHr.toString()),
    locked: row.locked,
    globalNetworking: { enabled: row.globalNetworking },
    runtime: running
      ? {
          uptime: row.lastStartedAt ? Math.max(0, Math.floor((now.getTime() - row.lastStartedAt.getTime()) / 1000)) : 0,
          ports: runtimePorts(row),
        }
      : null,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.lastStartedAt?.toISOString() ?? null,
  };
}
