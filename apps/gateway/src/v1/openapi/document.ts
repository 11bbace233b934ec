import { z } from 'zod';
import type { NamedSchema, V1Route } from './route';

/** A JSON object of an OpenAPI document. */
export type OpenApiObject = Record<string, unknown>;

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

const SCHEMA_PREFIX = '#/components/schemas/';
const ERROR_BODY = 'ErrorBody';
const ref = (name: string) => ({ $ref: `${SCHEMA_PREFIX}${name}` });

/** Every named schema of the routes, in a registry per direction (requests are read as input, responses as output). */
function registries(routes: readonly V1Route[]) {
  const input = z.registry<{ id: string }>();
  const output = z.registry<{ id: string }>();
  const seen = new Map<string, z.ZodType>();
  const add = (registry: typeof input, named: NamedSchema) => {
    const previous = seen.get(named.name);
    if (previous && previous !== named.schema) throw new Error(`OpenAPI: two schemas are named ${named.name}`);
    seen.set(named.name, named.schema);
    if (!registry.has(named.schema)) registry.add(named.schema, { id: named.name });
  };
  for (const route of routes) {
    if (route.body) add(input, route.body);
    if (route.response.kind === 'json') add(output, route.response.schema);
  }
  return { input, output };
}

/** JSON Schema 2020-12 without the per-schema `$schema`/`$id` that a component must not carry. */
function asComponent(schema: unknown): OpenApiObject {
  const { $schema: _schema, $id: _id, ...rest } = schema as OpenApiObject;
  return rest;
}

function componentSchemas(routes: readonly V1Route[]): Record<string, OpenApiObject> {
  const { input, output } = registries(routes);
  const options = { uri: (id: string) => `${SCHEMA_PREFIX}${id}`, unrepresentable: 'any' as const };
  const inputs = z.toJSONSchema(input, { ...options, io: 'input' }).schemas;
  const outputs = z.toJSONSchema(output, { ...options, io: 'output' }).schemas;
  const schemas: Record<string, OpenApiObject> = {
    [ERROR_BODY]: {
      type: 'object',
      properties: { message: { type: 'string' }, code: { type: 'string' }, requestId: { type: 'string' } },
      required: ['message'],
    },
  };
  for (const [name, schema] of Object.entries({ ...inputs, ...outputs })) schemas[name] = asComponent(schema);
  return schemas;
}

function parameters(route: V1Route): OpenApiObject[] {
  const path = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
  if (!route.query) return path;
  const query = z.toJSONSchema(route.query, { io: 'input', unrepresentable: 'any' }) as OpenApiObject;
  const required = new Set(Array.isArray(query.required) ? query.required : []);
  const properties = (query.properties ?? {}) as Record<string, OpenApiObject>;
  return [
    ...path,
    ...Object.entries(properties).map(([name, schema]) => ({
      name,
      in: 'query',
      required: required.has(name),
      // Arrays repeat the key (`?gpuTypeId=A&gpuTypeId=B`): OpenAPI's default form style with explode.
      ...(schema.type === 'array' ? { style: 'form', explode: true } : {}),
      schema,
    })),
  ];
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

/** Builds the v1 OpenAPI 3.1 document from the route table and the zod schemas that validate each route. */
export function buildOpenApiDocument(routes: readonly V1Route[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`OpenAPI: ${route.method} ${route.path} is listed twice`);
    item[method] = operation(route);
  }
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
      schemas: componentSchemas(routes),
    },
  };
}
