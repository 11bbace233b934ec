import {
  CUDA_VERSIONS,
  ENDPOINT_CPU_FLAVOR_IDS,
  type EndpointCreateInput,
  type EndpointDto,
  ValidationError,
} from '@runplane/contracts';
import { ProblemError, unprocessable } from '../http';
import type { PoolTable } from './pools';
import type { CreateEndpointRequest, UpdateEndpointRequest } from './serverless.schemas';

/** The v1 endpoint fields a v2 body's compute, scaling and placement become. */
export type EndpointFields = Omit<EndpointCreateInput, 'templateId' | 'computeType'>;

type GpuBody = NonNullable<UpdateEndpointRequest['gpu']>;
type CpuBody = NonNullable<CreateEndpointRequest['cpu']>;

const badRequest = (detail: string) => new ProblemError(400, detail);

/** GPU types of the pools, less the excluded ones (each must be a type of one of the pools); at least one is left. */
export function gpuTypesOfPools(pools: readonly string[], excluded: readonly string[], table: PoolTable): string[] {
  const unknown = pools.filter((pool) => !table.members.has(pool));
  if (unknown.length > 0) {
    throw new ValidationError(`gpu.pools: unknown pool ${unknown.join(', ')} (see pool in GET /v2/catalog/gpus)`);
  }
  const types = [...new Set(pools.flatMap((pool) => table.members.get(pool) ?? []))];
  const exclusions = new Set(excluded.map((id) => id.trim()));
  const stray = [...exclusions].filter((id) => !types.includes(id));
  if (stray.length > 0) throw new ValidationError(`gpu.excludedTypes: ${stray.join(', ')} is in none of gpu.pools`);
  const chosen = types.filter((id) => !exclusions.has(id));
  if (chosen.length === 0) throw new ValidationError('gpu.excludedTypes: excludes every GPU type of gpu.pools');
  return chosen;
}

function cudaFields(gpu: GpuBody): Pick<EndpointFields, 'allowedCudaVersions' | 'minCudaVersion'> {
  const known = (version: string): version is (typeof CUDA_VERSIONS)[number] =>
    (CUDA_VERSIONS as readonly string[]).includes(version);
  const allowed = gpu.allowedCudaVersions;
  const unknown = [...(allowed ?? []), gpu.minCudaVersion ?? ''].filter((v) => v !== '' && !known(v));
  if (unknown.length > 0) throw new ValidationError(`gpu.allowedCudaVersions: unknown CUDA version ${unknown[0]}`);
  if ((allowed ?? []).length > 0 && gpu.minCudaVersion) {
    throw badRequest('gpu.allowedCudaVersions and gpu.minCudaVersion are mutually exclusive; send one of them');
  }
  return {
    ...(allowed === undefined ? {} : { allowedCudaVersions: allowed.filter(known) }),
    ...(gpu.minCudaVersion === undefined || gpu.minCudaVersion === ''
      ? {}
      : { minCudaVersion: gpu.minCudaVersion as (typeof CUDA_VERSIONS)[number] }),
  };
}

/** A GPU block as v1 fields; `pools` absent (PATCH) keeps the types, and then `excludedTypes` may not come alone. */
export function gpuFields(gpu: GpuBody, table: PoolTable): EndpointFields {
  if (gpu.excludedTypes !== undefined && gpu.pools === undefined) {
    throw unprocessable(["$.gpu: property 'excludedTypes' requires property 'pools'"]);
  }
  return {
    ...(gpu.pools === undefined ? {} : { gpuTypeIds: gpuTypesOfPools(gpu.pools, gpu.excludedTypes ?? [], table) }),
    ...(gpu.count === undefined ? {} : { gpuCount: gpu.count }),
    ...cudaFields(gpu),
  };
}

/** A CPU block as v1 fields: Runplane runs all of an endpoint's CPU flavors at one vCPU count. */
export function cpuFields(cpu: CpuBody): EndpointFields {
  const counts = new Set(cpu.map((item) => item.vcpuCount));
  if (counts.size > 1) throw badRequest('cpu: every entry must have the same vcpuCount (one worker size per endpoint)');
  const flavors = cpu.map((item) => item.id);
  const unknown = flavors.filter((id) => !(ENDPOINT_CPU_FLAVOR_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) throw new ValidationError(`cpu: CPU flavor ${unknown[0]} does not run serverless workers`);
  if (new Set(flavors).size < flavors.length) throw unprocessable(['$.cpu: items must be unique']);
  return {
    cpuFlavorIds: flavors as EndpointFields['cpuFlavorIds'],
    vcpuCount: cpu[0]?.vcpuCount,
  };
}

/** Scaling, workers, placement and the rest of a body that map one to one. */
export function plainFields(body: CreateEndpointRequest | UpdateEndpointRequest): EndpointFields {
  const { scaling, workers } = body;
  const value =
    scaling === undefined ? undefined : scaling.type === 'QUEUE_DELAY' ? scaling.queueDelay : scaling.requestCount;
  const fields: EndpointFields = {
    name: body.name,
    // Runplane's scaler counts whole seconds of queue delay: 0.5 s rounds up to 1.
    scalerType: scaling?.type,
    scalerValue: value === undefined ? undefined : Math.max(1, Math.round(value)),
    workersMin: workers?.min,
    workersMax: workers?.max,
    idleTimeout: workers?.idleTimeout,
    executionTimeoutMs: body.timeout,
    flashboot: body.flashboot === undefined ? undefined : body.flashboot !== 'OFF',
    dataCenterIds: body.dataCenterIds?.length === 0 ? undefined : body.dataCenterIds,
    networkVolumeIds: body.networkVolumes,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as EndpointFields;
}

/** RunPod's rules between type, scaling and workers (422), and between gpu and cpu (400). */
export function checkShape(
  body: CreateEndpointRequest | UpdateEndpointRequest,
  current: { type: 'QUEUE' | 'LOAD_BALANCER'; dto?: EndpointDto },
): void {
  const scalerType = body.scaling?.type ?? current.dto?.scalerType;
  if (current.type === 'LOAD_BALANCER' && body.scaling?.type === 'QUEUE_DELAY') {
    throw unprocessable(['$.scaling.type: a LOAD_BALANCER endpoint scales on REQUEST_COUNT']);
  }
  if (current.type === 'QUEUE' && scalerType === 'REQUEST_COUNT' && body.workers?.idleTimeout !== undefined) {
    throw unprocessable(['$.workers.idleTimeout: not applicable to a QUEUE endpoint scaling on REQUEST_COUNT']);
  }
  if (body.gpu !== undefined && body.cpu !== undefined) throw badRequest('Send one of gpu and cpu, not both');
  if (!current.dto && body.gpu === undefined && body.cpu === undefined) throw badRequest('Send one of gpu and cpu');
  if (current.dto?.computeType === 'GPU' && body.cpu !== undefined) {
    throw badRequest('cpu: this is a GPU endpoint; the compute family is fixed at create');
  }
  if (current.dto?.computeType === 'CPU' && body.gpu !== undefined) {
    throw badRequest('gpu: this is a CPU endpoint; the compute family is fixed at create');
  }
}
