import { z } from 'zod';

/** A JSON object of an OpenAPI document. */
export type OpenApiObject = Record<string, unknown>;

const SCHEMA_PREFIX = '#/components/schemas/';

/** A reference to a component schema. */
export const schemaRef = (name: string) => ({ $ref: `${SCHEMA_PREFIX}${name}` });

/** A zod schema under the component name it is published as. */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

/** What the OpenAPI documents of v1 and v2 read of a route: each version's route type has at least this. */
export interface DocumentedRoute {
  method: string;
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  public?: boolean;
  status: number;
  body?: NamedSchema;
  query?: z.ZodType;
  response: { kind: string; schema?: NamedSchema };
}

/** Every named schema, in a registry per direction (requests are read as input, responses as output). */
function registries(routes: readonly DocumentedRoute[], outputs: readonly NamedSchema[]) {
  const input = z.registry<{ id: string }>();
  const output = z.registry<{ id: string }>();
  const seen = new Map<string, z.ZodType>();
  const add = (registry: typeof input, named: NamedSchema) => {
    const previous = seen.get(named.name);
    if (previous && previous !== named.schema) throw new Error(`OpenAPI: two schemas are named ${named.name}`);
    seen.set(named.name, named.schema);
    if (!registry.has(named.schema)) registry.add(named.schema, { id: named.name });
  };
  for (const named of outputs) add(output, named);
  for (const route of routes) {
    if (route.body) add(input, route.body);
    if (route.response.kind === 'json' && route.response.schema) add(output, route.response.schema);
  }
  return { input, output };
}

/**
 * The component schemas of the routes' bodies and JSON answers (and of `outputs`, first), as JSON Schema 2020-12
 * without the per-schema `$schema`/`$id` a component must not carry.
 */
export function componentSchemas(
  routes: readonly DocumentedRoute[],
  outputs: readonly NamedSchema[] = [],
): Record<string, OpenApiObject> {
  const { input, output } = registries(routes, outputs);
  const options = { uri: (id: string) => `${SCHEMA_PREFIX}${id}`, unrepresentable: 'any' as const };
  const inputs = z.toJSONSchema(input, { ...options, io: 'input' }).schemas;
  const answers = z.toJSONSchema(output, { ...options, io: 'output' }).schemas;
  const schemas: Record<string, OpenApiObject> = {};
  for (const [name, schema] of Object.entries({ ...inputs, ...answers })) {
    const { $schema: _schema, $id: _id, ...rest } = schema as OpenApiObject;
    schemas[name] = rest;
  }
  return schemas;
}

/** The path parameters of a `{param}` path: required, non-empty strings. */
export function pathParameters(path: string): OpenApiObject[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1 },
  }));
}

/**
 * The query parameters of a query schema. A list is sent either as the key repeated (`?gpuTypeId=A&gpuTypeId=B`,
 * OpenAPI's form style exploded: v1) or comma-separated (`?product=POD,SERVERLESS`, not exploded: v2).
 */
export function queryParameters(query: z.ZodType | undefined, lists: 'repeated' | 'comma'): OpenApiObject[] {
  if (!query) return [];
  const schema = z.toJSONSchema(query, { io: 'input', unrepresentable: 'any' }) as OpenApiObject;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const properties = (schema.properties ?? {}) as Record<string, OpenApiObject>;
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(property.type === 'array' ? { style: 'form', explode: lists === 'repeated' } : {}),
    schema: property,
  }));
}

/** One operation of a document: the route's identity, its parameters, request body and answers. */
export function operationOf(
  route: DocumentedRoute,
  parts: { parameters: OpenApiObject[]; success: OpenApiObject; errors: Record<string, OpenApiObject> },
): OpenApiObject {
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    ...(route.public ? { security: [] } : {}),
    parameters: parts.parameters,
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: schemaRef(route.body.name) } } } }
      : {}),
    responses: { [String(route.status)]: parts.success, ...parts.errors },
  };
}

/** The `paths` of a document: each route's operation under its path and method, each listed once. */
export function pathsOf<R extends DocumentedRoute>(
  routes: readonly R[],
  operation: (route: R) => OpenApiObject,
): Record<string, Record<string, OpenApiObject>> {
  const paths: Record<string, Record<string, OpenApiObject>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`OpenAPI: ${route.method} ${route.path} is listed twice`);
    item[method] = operation(route);
  }
  return paths;
}
