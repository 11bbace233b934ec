import type { Pod } from '@runplane/db';
import type { WorkerTokensService } from '@runplane/accounts';
import { workerEnv } from '../autoscaler/worker-env';
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
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * Builds what the driver runs for a Pod row. Workers get RunPod's worker environment with a fresh worker token:
 * the token exists only in the running workload (never in the Pod row, whose env the API shows); the worker's
 * earlier tokens are revoked first, so one live token per worker.
 */
export class WorkloadSpecs {
  constructor(
    private readonly tokens: WorkerTokensService,
    private readonly options: WorkloadSpecOptions,
  ) {}

  async build(row: Pod, wipeContainerDisk: boolean): Promise<WorkloadSpec> {
    const machineName = row.machineId as string;
    const base = {
      RUNPOD_POD_ID: row.id,
      RUNPOD_GPU_COUNT: String(row.gpuCount),
      RUNPOD_CPU_COUNT: String(row.vcpuCount),
      RUNPOD_DC_ID: row.dataCenterId ?? '',
    };
    let env: Record<string, string> = { ...stringEnv(row.env), ...base };
    if (row.endpointId !== null) {
      const identity = { accountId: row.accountId, endpointId: row.endpointId, workerId: row.id };
      await this.tokens.revoke(identity);
      const { token } = await this.tokens.issue(row.endpointId, row.id);
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
}
