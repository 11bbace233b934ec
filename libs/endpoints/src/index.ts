import type { DbClient } from '@runplane/db';
import { EndpointShapeChecker } from './endpoint-shape';
import { EndpointsRepository } from './endpoints.repository';
import { EndpointsService } from './endpoints.service';
import type {
  EndpointCatalog,
  EndpointRuntimeData,
  EndpointTemplateSource,
  EndpointVolumeSource,
  EndpointWorkerSource,
} from './ports';

export { EndpointsService } from './endpoints.service';
export { isReservedEndpointId, newEndpointId, RESERVED_ENDPOINT_IDS, V2_MANAGEMENT_SEGMENTS } from './endpoint-id';
export { EndpointsRepository, type EndpointConfig, type EndpointPosition } from './endpoints.repository';
export { EndpointShapeChecker, checkWorkerBounds, requestedVolumeIds } from './endpoint-shape';
export type {
  EndpointCatalog,
  EndpointRuntimeData,
  EndpointTemplateSource,
  EndpointVolumeSource,
  EndpointWorkerSource,
} from './ports';
export { SNAPSHOT_MARGIN_MS } from './endpoint-snapshot';
export {
  ScalingRepository,
  type ScalableEndpoint,
  type WorkerPlacement,
  type WorkerPrices,
  type WorkerRow,
} from './scaling.repository';
export {
  WORKER_STATES,
  WorkerStateStore,
  type EndpointWorkerStates,
  type WorkerState,
  type WorkerStateEntry,
  type WorkerStatesPatch,
} from './worker-states';

/** What the endpoints service is built from: the database and the other domains it reads. */
export interface EndpointsDependencies {
  catalog: EndpointCatalog;
  templates: EndpointTemplateSource;
  volumes: EndpointVolumeSource;
  workers: EndpointWorkerSource;
  /** Where the endpoint's jobs live, purged when it is deleted. */
  runtime: EndpointRuntimeData;
}

/** The endpoints service over one database client. */
export function createEndpointsService(db: DbClient, deps: EndpointsDependencies): EndpointsService {
  return new EndpointsService(
    new EndpointsRepository(db),
    new EndpointShapeChecker(deps.catalog, deps.volumes),
    deps.templates,
    deps.workers,
    deps.runtime,
  );
}
export { EndpointReleasesRepository, releaseDiff, type EndpointReleaseRow, type ReleaseChange } from './releases';
export {
  PublicEndpointsRepository,
  type PublicEndpointFields,
  type PublishedEndpoint,
} from './public-endpoints.repository';
export { PublicEndpointsService, toPublicEndpointDto, toPublicModelDto } from './public-endpoints.service';
export {
  LoadBalancerUpstreamsRepository,
  type LbEndpointRow,
  type LbWorkerRow,
} from './load-balancer-upstreams.repository';
