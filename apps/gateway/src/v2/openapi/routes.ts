import { buildV2OpenApiDocument, type V2OpenApiDocument } from './document';
import type { V2Route } from './route';
import { billingRoutes } from '../billing/billing.routes';
import { catalogRoutes } from '../catalog/catalog.routes';
import { serverlessRoutes } from '../serverless/serverless.routes';
import { LOG_ROUTES } from '../logs/logs.routes';
import { podRoutes } from '../pods/pods.routes';
import { accountRoutes } from '../account/account.routes';
import { templateRoutes } from '../templates/templates.routes';
import { networkVolumeRoutes } from '../network-volumes/network-volumes.routes';
import { registryRoutes } from '../registries/registries.routes';
import { s3KeyRoutes } from '../s3-keys/s3-keys.routes';

/** `/v2/openapi.json` itself. */
const documentRoutes: V2Route[] = [
  {
    method: 'GET',
    path: '/v2/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI document',
    tag: 'Docs',
    status: 200,
    response: { kind: 'openapi' },
    public: true,
  },
];

/**
 * Every v2 route, in the order the document lists them: each resource family exports its table beside its controller
 * and adds one line here. The fallback uses the same table to answer a known path's wrong method with 405 and `Allow`.
 */
export const V2_ROUTES: readonly V2Route[] = [
  ...documentRoutes,
  ...accountRoutes,
  ...s3KeyRoutes,
  ...templateRoutes,
  ...networkVolumeRoutes,
  ...registryRoutes,
  ...podRoutes,
  ...LOG_ROUTES,
  ...catalogRoutes,
  ...serverlessRoutes,
  ...billingRoutes,
];

let cached: V2OpenApiDocument | undefined;

/** The v2 OpenAPI document, built once from the route table. */
export function v2OpenApiDocument(): V2OpenApiDocument {
  cached ??= buildV2OpenApiDocument(V2_ROUTES);
  return cached;
}
