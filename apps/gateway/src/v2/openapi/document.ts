import {
  componentSchemas,
  type OpenApiObject,
  operationOf,
  pathParameters,
  pathsOf,
  queryParameters,
  schemaRef as ref,
} from '../../openapi/document-parts';
import { problemSchema } from '../http/problem';
import type { V2Route } from './route';

export type { OpenApiObject } from '../../openapi/document-parts';

/** The OpenAPI 3.1 document of the v2 API. */
export interface V2OpenApiDocument {
  openapi: '3.1.0';
  info: OpenApiObject;
  security: OpenApiObject[];
  tags: OpenApiObject[];
  paths: Record<string, Record<string, OpenApiObject>>;
  components: { securitySchemes: OpenApiObject; schemas: Record<string, OpenApiObject>; headers: OpenApiObject };
}

const PROBLEM = 'ErrorResponse';
const RATE_HEADERS = {
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

function parameters(route: V2Route): OpenApiObject[] {
  const headers = (route.headers ?? []).map((name) => ({
    name,
    in: 'header',
    required: false,
    schema: { type: 'string' },
  }));
  return [...pathParameters(route.path), ...queryParameters(route.query, 'comma'), ...headers];
}

function successResponse(route: V2Route): OpenApiObject {
  const headers = route.public ? {} : { headers: RATE_HEADERS };
  const response = route.response;
  switch (response.kind) {
    case 'json':
      return {
        description: 'Success.',
        ...headers,
        content: { 'application/json': { schema: ref(response.schema.name) } },
      };
    case 'openapi':
      return { description: 'This OpenAPI document.', content: { 'application/json': { schema: { type: 'object' } } } };
    case 'sse':
      return {
        description: response.description,
        ...headers,
        content: { 'text/event-stream': { schema: { type: 'string' } } },
      };
    case 'empty':
      return { description: 'Done; no content.', ...headers };
  }
}

function errorResponses(route: V2Route): Record<string, OpenApiObject> {
  const problem = (description: string, extra: OpenApiObject = {}) => ({
    description,
    ...extra,
    content: { 'application/problem+json': { schema: ref(PROBLEM) } },
  });
  const responses: Record<string, OpenApiObject> = {};
  if (route.body) responses['400'] = problem('Malformed JSON, or a request the current state refuses.');
  if (!route.public) {
    responses['401'] = problem('Missing, unknown or disabled API key.');
    responses['403'] = problem('The API key may not do this.');
  }
  if (route.path.includes('{')) responses['404'] = problem('Not found (or owned by another account).');
  if (route.body || route.query)
    responses['422'] = problem('The body or query failed validation; `errors` names each field.');
  if (!route.public) {
    const retryAfter = { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } };
    responses['429'] = problem('Over a v2 quota of the account.', {
      headers: { ...RATE_HEADERS, 'Retry-After': retryAfter },
    });
  }
  responses.default = problem('Error.');
  return responses;
}

function operation(route: V2Route): OpenApiObject {
  return operationOf(route, {
    parameters: parameters(route),
    success: successResponse(route),
    errors: errorResponses(route),
  });
}

const HEADER_COMPONENTS = {
  RateLimit: {
    description: 'Remaining requests `r` and seconds to reset `t` of each window: `"minute";r=59;t=60, ...`.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'Quota `q` and window length `w` in seconds of each window: `"minute";q=600;w=60, ...`.',
    schema: { type: 'string' },
  },
};

/** Builds the v2 OpenAPI 3.1 document from the route table and the zod schemas that validate each route. */
export function buildV2OpenApiDocument(routes: readonly V2Route[]): V2OpenApiDocument {
  const paths: V2OpenApiDocument['paths'] = pathsOf(routes, operation);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Runplane REST API v2',
      version: '2.0.0',
      description: "Runplane's management API, wire-compatible with RunPod's REST API v2, over the same data as v1.",
    },
    security: [{ bearerAuth: [] }],
    tags: [...new Set(routes.map((route) => route.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
      },
      schemas: componentSchemas(routes, [{ name: PROBLEM, schema: problemSchema }]),
      headers: HEADER_COMPONENTS,
    },
  };
}
