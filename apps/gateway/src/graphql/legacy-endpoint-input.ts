import { endpointCreateInput, type EndpointCreateInput, ValidationError } from '@runplane/contracts';
import { parseInput } from '@runplane/http';

/** `saveEndpoint`'s input as runpod-python (inline) and runpodctl (`$input: EndpointInput!`) send it. */
export interface LegacyEndpointInput {
  /** The endpoint to replace; absent or null for a new one. */
  id?: string | null;
  name?: string | null;
  templateId: string;
  gpuIds?: string | null;
  gpuCount?: number | null;
  locations?: string | null;
  networkVolumeId?: string | null;
  idleTimeout?: number | null;
  scalerType?: string | null;
  scalerValue?: number | null;
  workersMin?: number | null;
  workersMax?: number | null;
  executionTimeoutMs?: number | null;
  allowedCudaVersions?: string | null;
  minCudaVersion?: string | null;
  flashBootType?: 'OFF' | 'FLASHBOOT' | 'PRIORITY_FLASHBOOT' | null;
}

/** A comma-separated list as the clients write them ("ADA_24,AMPERE_16", "EU-RO-1", "12.4,12.5"); "" is none. */
function commaList(value: string | null | undefined): string[] | undefined {
  const items = (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return items.length > 0 ? items : undefined;
}

/**
 * `gpuIds` to catalog GPU types: each entry is a serverless pool (all its types) or a GPU type id; `-<type>` takes a
 * type out again, as RunPod reads it.
 */
export function gpuTypesOf(
  gpuIds: string[],
  pools: ReadonlyMap<string, readonly string[]>,
  types: ReadonlySet<string>,
) {
  const chosen: string[] = [];
  for (const id of gpuIds.filter((entry) => !entry.startsWith('-'))) {
    const members = pools.get(id) ?? (types.has(id) ? [id] : undefined);
    if (!members) throw new ValidationError(`gpuIds: unknown GPU pool or type "${id}"`);
    for (const member of members) if (!chosen.includes(member)) chosen.push(member);
  }
  const excluded = new Set(gpuIds.filter((entry) => entry.startsWith('-')).map((entry) => entry.slice(1)));
  return chosen.filter((type) => !excluded.has(type));
}

function defined<T extends object>(fields: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null && value !== ''),
  ) as Partial<T>;
}

/** The `POST /v1/endpoints` body for a new endpoint, validated as that route validates it (same messages). */
export function endpointInput(input: LegacyEndpointInput, gpuTypeIds: string[] | undefined): EndpointCreateInput {
  return parseInput(
    endpointCreateInput,
    defined({
      templateId: input.templateId,
      name: input.name,
      gpuTypeIds,
      gpuCount: input.gpuCount,
      dataCenterIds: commaList(input.locations),
      networkVolumeId: input.networkVolumeId,
      idleTimeout: input.idleTimeout,
      scalerType: input.scalerType,
      scalerValue: input.scalerValue,
      workersMin: input.workersMin,
      workersMax: input.workersMax,
      executionTimeoutMs: input.executionTimeoutMs,
      allowedCudaVersions: commaList(input.allowedCudaVersions),
      minCudaVersion: input.minCudaVersion,
      flashboot: input.flashBootType ? input.flashBootType !== 'OFF' : undefined,
    }),
  );
}

/** The gpuIds list of an input, if it names any. */
export function gpuIdsOfInput(input: LegacyEndpointInput): string[] | undefined {
  return commaList(input.gpuIds);
}
