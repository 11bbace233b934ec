import { ProblemError } from '../http';
import type { CpuQuery, GpuQuery } from './catalog.schemas';

const badRequest = (detail: string): ProblemError => new ProblemError(400, detail);

/**
 * The parameter rules RunPod's catalog states (400 when broken): `include=AVAILABILITY` needs `product` and `product`
 * needs it; the availability filters are valid only with it; `cudaVersions` and `minCudaVersion` exclude each other.
 */
export function checkAvailabilityQuery(query: GpuQuery | CpuQuery, filters: readonly string[]): boolean {
  const wanted = (query.include ?? []).length > 0;
  const product = (query.product ?? []).length > 0;
  if (wanted && !product) throw badRequest('product is required with include=AVAILABILITY (POD, SERVERLESS, ...)');
  if (!wanted && product) throw badRequest('product is valid only with include=AVAILABILITY');
  const values = query as Record<string, unknown>;
  const stray = filters.filter((name) => values[name] !== undefined);
  if (!wanted && stray.length > 0) throw badRequest(`${stray.join(', ')}: valid only with include=AVAILABILITY`);
  if (values['cudaVersions'] !== undefined && values['minCudaVersion'] !== undefined) {
    throw badRequest('cudaVersions and minCudaVersion are mutually exclusive; send one of them');
  }
  return wanted;
}

/** The filters of a GPU availability query. */
export const GPU_FILTERS = ['count', 'cloud', 'countryCodes', 'cudaVersions', 'minCudaVersion'] as const;
/** The filters of a CPU availability query. */
export const CPU_FILTERS = ['vcpuCount'] as const;
