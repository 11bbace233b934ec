import type { EndpointDto } from '@runplane/contracts';
import { type EndpointReleaseRow, releaseDiff } from '@runplane/endpoints';
import type { ListReleasesResponse } from './serverless.schemas';
import { activeWorkers } from './workers-view';

/**
 * RunPod's ListEndpointReleasesResponse: every version of the endpoint, newest first, each with the fields that
 * changed from the version before (all fields for the first) and how many active workers run it; `rollout` compares
 * the workers with the current version. Releases are MANUAL: Runplane builds no images.
 */
export function releasesView(dto: EndpointDto, rows: readonly EndpointReleaseRow[]): ListReleasesResponse {
  const workers = activeWorkers(dto);
  const onVersion = (version: number) => workers.filter((pod) => pod.slsVersion === version).length;
  const workersOnLatest = onVersion(dto.version);
  return {
    endpointVersion: dto.version,
    rollout: {
      inProgress: workersOnLatest < workers.length,
      workersOnLatest,
      workersTotal: workers.length,
      percentOnLatest: workers.length === 0 ? 0 : Math.floor((workersOnLatest * 100) / workers.length),
    },
    releases: rows.map((row, index) => ({
      id: row.id,
      version: row.version,
      source: 'MANUAL',
      buildId: null,
      createdByUserId: null,
      workerCount: onVersion(row.version),
      createdAt: row.createdAt.toISOString(),
      diff: releaseDiff(rows[index + 1]?.config ?? null, row.config),
    })),
  };
}
