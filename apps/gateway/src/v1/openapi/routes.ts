import { buildOpenApiDocument, type OpenApiDocument } from './document';
import type { V1Route } from './route';
import { billingRoutes } from './routes/billing.routes';
import { endpointRoutes } from './routes/endpoints.routes';
import { apiKeyRoutes, docsRoutes, registryAuthRoutes } from './routes/extensions.routes';
import { networkVolumeRoutes } from './routes/network-volumes.routes';
import { podRoutes } from './routes/pods.routes';
import { publicEndpointRoutes } from './routes/public-endpoints.routes';
import { s3KeyRoutes } from './routes/s3-keys.routes';
import { templateRoutes } from './routes/templates.routes';
import { webhookRoutes } from './routes/webhooks.routes';

/** Every v1 route, in the order the document lists them. */
export const V1_ROUTES: readonly V1Route[] = [
  ...docsRoutes,
  ...podRoutes,
  ...endpointRoutes,
  ...templateRoutes,
  ...networkVolumeRoutes,
  ...registryAuthRoutes,
  ...billingRoutes,
  ...apiKeyRoutes,
  ...s3KeyRoutes,
  ...webhookRoutes,
  ...publicEndpointRoutes,
];

let cached: OpenApiDocument | undefined;

/** The v1 OpenAPI document, built once from the route table. */
export function v1OpenApiDocument(): OpenApiDocument {
  cached ??= buildOpenApiDocument(V1_ROUTES);
  return cached;
}
