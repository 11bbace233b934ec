import type { Principal, PublicModelList } from '@runplane/contracts';
import type { PlainRoute } from '@runplane/http';
import { clientRoute } from '../client/client-routes';
import type { ClientPolicy } from '../http/job-api-guards';

/** Every public model of the installation (the endpoints lib's PublicEndpointsService). */
export interface PublicModelCatalog {
  models(): Promise<PublicModelList>;
}

/**
 * `GET /v2/public-endpoints`: the public models every account may call, with their input and output descriptions and
 * per-request price. On the job API, where callers send their jobs; `public-endpoints` is a reserved endpoint id.
 */
export function publicModelRoutes(catalog: PublicModelCatalog): PlainRoute<ClientPolicy, Principal>[] {
  return [
    clientRoute({
      method: 'GET',
      url: '/v2/public-endpoints',
      policy: { access: 'read' },
      handle: () => catalog.models(),
    }),
  ];
}
