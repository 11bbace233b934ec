import {
  componentSchemas,
  type OpenApiObject,
  operationOf,
  pathParameters,
  pathsOf,
  queryParameters,
  schemaRef as ref,
} from '../../openapi/document-parts';
import type { V1Route } from './route';

export type { OpenApiObject } from '../../openapi/document-parts';

/** The OpenAPI 3.1 document of the v1 API. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: OpenApiObject;
  servers: OpenApiObject[];
  security: OpenApiObject[];
  tags: OpenApiObject[];
  paths: Record<string, Record<string, OpenApiObject>>;
  components: { securitySchemes: OpenApiObject; schemas: Record<string, OpenApiObject> };
}

const ERROR_BODY = 'ErrorBody';

function v1ComponentSchemas(routes: readonly V1Route[]): Record<string, OpenApiObject> {
  return {
    [ERROR_BODY]: {
      type: 'object',
      properties: { message: { type: 'string' }, code: { type: 'string' }, requestId: { type: 'string' } },
      required: ['message'],
    },
    ...componentSchemas(routes),
  };
}

function parameters(route: V1Route): OpenApiObject[] {
  return [...pathParameters(route.path), ...queryParameters(route.query, 'repeated')];
}

function successResponse(route: V1Route): OpenApiObject {
  const response = route.response;
  switch (response.kind) {
    case 'json': {
      const schema = ref(response.schema.name);
      const body = response.list ? { type: 'array', items: schema } : schema;
      return { description: 'Success.', content: { 'application/json': { schema: body } } };
    }
    case 'html':
      return { description: 'Interactive API reference.', content: { 'text/html': { schema: { type: 'string' } } } };
    case 'openapi':
      return { description: 'This OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } };
    case 'empty':
      return { description: 'Done; no content.' };
  }
}

function errorResponses(route: V1Route): Record<string, OpenApiObject> {
  const error = (description: string) => ({
    description,
    content: { 'application/json': { schema: ref(ERROR_BODY) } },
  });
  const responses: Record<string, OpenApiObject> = {};
  if (route.body || route.query || route.path.includes('{')) responses['400'] = error('Invalid input.');
  if (!route.public) {
    responses['401'] = error('Missing, unknown or disabled API key.');
    responses['403'] = error('The API key may not do this.');
  }
  if (route.path.includes('{')) responses['404'] = error('Not found (or owned by another account).');
  return responses;
}

function operation(route: V1Route): OpenApiObject {
  return operationOf(route, {
    parameters: parameters(route),
    success: successResponse(route),
    errors: errorResponses(route),
  });
}

/** Builds the v1 OpenAPI 3.1 document from the route table and the zod schemas that validate each route. */
export function buildOpenApiDocument(routes: readonly V1Route[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = pathsOf(routes, operation);
  const tags = [...new Set(routes.map((route) => route.tag))].map((name) => ({ name }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Runplane REST API v1',
      version: '1.0.0',
      description:
        "Runplane's management API, wire-compatible with RunPod's REST API v1, plus Runplane's extensions (API keys).",
    },
    servers: [{ url: '/v1' }],
    security: [{ ApiKey: [] }],
    tags,
    paths,
    components: {
      securitySchemes: { ApiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' } },
      schemas: v1ComponentSchemas(routes),
    },
  };
}
