import type { WorkerTokensService } from '@runplane/accounts';
import type { PodRecord } from '@runplane/workloads';
import { workerEnv } from '../autoscaler/worker-env';
import { MicroBatch } from '../batching/micro-batch';
import type { LoadBalancerPorts, WorkloadSpec } from '../drivers/compute-driver';

/** Settings the workload specs need. */
export interface WorkloadSpecOptions {
  jobApiUrl: string;
  workerPingMs: number;
  /** GFD product label of a machine (for the driver's GPU selector). */
  gpuProductOf: (machineId: string) => string | null;
  /** Which of these endpoints are load-balancing ones (their workers serve HTTP on PORT / PORT_HEALTH). */
  loadBalancing: (endpointIds: string[]) => Promise<Set<string>>;
}

/** RunPod's default port of a load-balancing worker's server and of its health server. */
export const DEFAULT_LB_PORT = 80;

function portOf(value: string | undefined): number {
  const port = Number(value);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_LB_PORT;
}

/** A load-balancing worker's ports: `PORT` and `PORT_HEALTH` of its environment, each 80 when unset or invalid. */
export function loadBalancerPorts(env: Readonly<Record<string, string>>): LoadBalancerPorts {
  return { port: portOf(env['PORT']), healthPort: portOf(env['PORT_HEALTH']) };
}

function stringEnv(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** The RunPod variables every Pod and worker runs with: its id, GPU and vCPU counts and data center. */
export function podEnv(pod: {
  id: string;
  gpuCount: number;
  vcpuCount: number;
  dataCenterId: string | null;
}): Record<string, string> {
  return {
    RUNPOD_POD_ID: pod.id,
    RUNPOD_GPU_COUNT: String(pod.gpuCount),
    RUNPOD_CPU_COUNT: String(pod.vcpuCount),
    RUNPOD_DC_ID: pod.dataCenterId ?? '',
  };
}

/**
 * Builds what the driver runs for a Pod row. Workers get RunPod's worker environment with a fresh worker token:
 * the token exists only in the running workload (never in the Pod row, whose env the API shows); the worker's
 * earlier tokens are revoked first, so one live token per worker.
 */
export class WorkloadSpecs {
  /** Workers started in one pass get their tokens in one revoke and one insert per endpoint. */
  private readonly issuing = new MicroBatch<{ endpointId: string; workerId: string }, string | Error>((workers) =>
    this.reissue(workers),
  );

  /** The endpoint types of the workers started in one pass, in one query. */
  private readonly types = new MicroBatch<string, boolean>(async (endpointIds) => {
    const balancing = await this.options.loadBalancing([...new Set(endpointIds)]);
    return endpointIds.map((id) => balancing.has(id));
  });

  constructor(
    private readonly tokens: WorkerTokensService,
    private readonly options: WorkloadSpecOptions,
  ) {}

  async build(row: PodRecord, wipeContainerDisk: boolean): Promise<WorkloadSpec> {
    const machineName = row.machineId as string;
    const own = { ...stringEnv(row.env), ...podEnv(row) };
    const { env, loadBalancer } =
      row.endpointId === null ? { env: own, loadBalancer: null } : await this.workerEnv(row, row.endpointId, own);
    return {
      podId: row.id,
      accountId: row.accountId,
      endpointId: row.endpointId,
      generation: row.generation,
      image: row.image,
      command: [...row.dockerEntrypoint, ...row.dockerStartCmd],
      env,
      machineName,
      gpuCount: row.gpuCount,
      gpuProduct: this.options.gpuProductOf(machineName),
      vcpuCount: row.vcpuCount,
      memoryInGb: row.memoryInGb,
      ports: row.ports,
      wipeContainerDisk,
      loadBalancer,
      networkVolumeId: row.networkVolumeId,
    };
  }

  /** A worker's environment: RunPod's worker variables with a fresh token, and PORT / PORT_HEALTH when it balances. */
  private async workerEnv(
    row: PodRecord,
    endpointId: string,
    own: Record<string, string>,
  ): Promise<{ env: Record<string, string>; loadBalancer: LoadBalancerPorts | null }> {
    const [token, balancing] = await Promise.all([
      this.issuing.load({ endpointId, workerId: row.id }),
      this.types.load(endpointId),
    ]);
    if (token instanceof Error) throw token;
    const protocol = workerEnv({
      jobApiUrl: this.options.jobApiUrl,
      endpointId,
      workerId: row.id,
      gpuTypeId: row.gpuTypeId,
      token,
      pingIntervalMs: this.options.workerPingMs,
    });
    if (!balancing) return { env: { ...own, ...protocol }, loadBalancer: null };
    const loadBalancer = loadBalancerPorts(own);
    const ports = { PORT: String(loadBalancer.port), PORT_HEALTH: String(loadBalancer.healthPort) };
    return { env: { ...own, ...protocol, ...ports }, loadBalancer };
  }

  /** Fresh tokens for workers (their earlier ones revoked), in the order asked; an endpoint's failure is its workers' alone. */
  private async reissue(workers: { endpointId: string; workerId: string }[]): Promise<(string | Error)[]> {
    const byEndpoint = new Map<string, Set<string>>();
    for (const { endpointId, workerId } of workers) {
      const ids = byEndpoint.get(endpointId) ?? new Set<string>();
      // A worker asked twice in one batch gets one token (a second one would revoke the first).
      ids.add(workerId);
      byEndpoint.set(endpointId, ids);
    }
    const tokens = new Map<string, string | Error>();
    for (const [endpointId, workerIds] of byEndpoint) {
      try {
        for (const { token, identity } of await this.tokens.reissueMany(endpointId, [...workerIds]))
          tokens.set(`${endpointId}/${identity.workerId}`, token);
      } catch (error) {
        for (const workerId of workerIds)
          tokens.set(`${endpointId}/${workerId}`, error instanceof Error ? error : new Error(String(error)));
      }
    }
    return workers.map(({ endpointId, workerId }) => tokens.get(`${endpointId}/${workerId}`) as string | Error);
  }
}
