import { z } from 'zod';
import { problemSchema } from '../http/problem';
import type { NamedSchema, V2Route } from './route';

/** A JSON object of an OpenAPI document. */
export type OpenApiObject = Record<string, unknown>;

/** The OpenAPI 3.1 document of the v2 API. */
export interface V2OpenApiDocument {
  openapi: '3.1.0';
  info: OpenApiObject;
  security: OpenApiObject[];
  tags: OpenApiObject[];
  paths: Record<string, Record<string, OpenApiObject>>;
  components: { securitySchemes: OpenApiObject; schemas: Record<string, OpenApiObject>; headers: OpenApiObject };
}

const SCHEMA_PREFIX = '#/components/schemas/';
const PROBLEM = 'ErrorResponse';
const ref = (name: string) => ({ $ref: `${SCHEMA_PREFIX}${name}` });
const RATE_HEADERS = {
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

/** Every named schema of the routes, in a registry per direction (requests are read as input, responses as output). */
function registries(routes: readonly V2Route[]) {
  const input = z.registry<{ id: string }>();
  const output = z.registry<{ id: string }>();
  const seen = new Map<string, z.ZodType>();
  const add = (registry: typeof input, schema: NamedSchema) => {
    const previous = seen.get(schema.name);
    if (previous && previous !== schema.schema) throw new Error(`OpenAPI: two schemas are named ${schema.name}`);
    seen.set(schema.name, schema.schema);
    if (!registry.has(schema.schema)) registry.add(schema.schema, { id: schema.name });
  };
  add(output, { name: PROBLEM, schema: problemSchema });
  for (const route of routes) {
    if (route.body) add(input, route.body);
    if (route.response.kind === 'json') add(output, route.response.schema);
  }
  return { input, output };
}

function componentSchemas(routes: readonly V2Route[]): Record<string, OpenApiObject> {
  const { input, output } = registries(routes);
  const options = { uri: (id: string) => `${SCHEMA_PREFIX}${id}`, unrepresentable: 'any' as const };
  const inputs = z.toJSONSchema(input, { ...options, io: 'input' }).schemas;
  const outputs = z.toJSONSchema(output, { ...options, io: 'output' }).schemas;
  const schemas: Record<string, OpenApiObject> = {};
  for (const [name, schema] of Object.entries({ ...inputs, ...outputs })) {
    const { $schema: _schema, $id: _id, ...rest } = schema as OpenApiObject;
    schemas[name] = rest;
  }
  return schemas;
}

function parameters(route: V2Route): OpenApiObject[] {
  const path = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
  const headers = (route.headers ?? []).map((name) => ({
    name,
    in: 'header',
    required: false,
    schema: { type: 'string' },
  }));
  if (!route.query) return [...path, ...headers];
  const query = z.toJSONSchema(route.query, { io: 'input', unrepresentable: 'any' }) as OpenApiObject;
  const required = new Set(Array.isArray(query.required) ? query.required : []);
  const properties = (query.properties ?? {}) as Record<string, OpenApiObject>;
  const queryParams = Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    // Lists are comma-separated (`?include=AVAILABILITY&product=POD,SERVERLESS`), as in RunPod's document.
    ...(schema.type === 'array' ? { style: 'form', explode: false } : {}),
    schema,
  }));
  return [...path, ...queryParams, ...headers];
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
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.public ? { security: [] } : {}),
    parameters: parameters(route),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: ref(route.body.name) } } } }
      : {}),
    responses: { [String(route.status)]: successResponse(route), ...errorResponses(route) },
  };
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
  const paths: V2OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`OpenAPI: ${route.method} ${route.path} is listed twice`);
    item[method] = operation(route);
  }
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
      schemas: componentSchemas(routes),
      headers: HEADER_COMPONENTS,
    },
  };
}
