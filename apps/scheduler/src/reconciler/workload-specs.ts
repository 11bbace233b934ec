import type { WorkerTokensService } from '@runplane/accounts';
import type { PodRecord } from '@runplane/workloads';
import { workerEnv } from '../autoscaler/worker-env';
import { MicroBatch } from '../batching/micro-batch';
import type { WorkloadSpec } from '../drivers/compute-driver';

/** Settings the workload specs need. */
export interface WorkloadSpecOptions {
  jobApiUrl: string;
  workerPingMs: number;
  /** GFD product label of a machine (for the driver's GPU selector). */
  gpuProductOf: (machineId: string) => string | null;
}

function stringEnv(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
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

  constructor(
    private readonly tokens: WorkerTokensService,
    private readonly options: WorkloadSpecOptions,
  ) {}

  async build(row: PodRecord, wipeContainerDisk: boolean): Promise<WorkloadSpec> {
    const machineName = row.machineId as string;
    const base = {
      RUNPOD_POD_ID: row.id,
      RUNPOD_GPU_COUNT: String(row.gpuCount),
      RUNPOD_CPU_COUNT: String(row.vcpuCount),
      RUNPOD_DC_ID: row.dataCenterId ?? '',
    };
    let env: Record<string, string> = { ...stringEnv(row.env), ...base };
    if (row.endpointId !== null) {
      const token = await this.issuing.load({ endpointId: row.endpointId, workerId: row.id });
      if (token instanceof Error) throw token;
      const protocol = workerEnv({
        jobApiUrl: this.options.jobApiUrl,
        endpointId: row.endpointId,
        workerId: row.id,
        gpuTypeId: row.gpuTypeId,
        token,
        pingIntervalMs: this.options.workerPingMs,
      });
      env = { ...env, ...protocol };
    }
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
    };
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
