import type { FuzzRoute } from './requests';

interface JsonSchema {
  $ref?: string;
  properties?: Record<string, JsonSchema>;
  allOf?: JsonSchema[];
}
interface OpenApiOperation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
/** An OpenAPI 3 document, as far as the fuzz reads it. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

function resolve(schema: JsonSchema | undefined, document: OpenApiDocument): JsonSchema | undefined {
  const name = schema?.$ref?.split('/').pop();
  return name ? document.components?.schemas?.[name] : schema;
}

function propertiesOf(schema: JsonSchema | undefined, document: OpenApiDocument): string[] {
  const resolved = resolve(schema, document);
  if (!resolved) return [];
  return [
    ...Object.keys(resolved.properties ?? {}),
    ...(resolved.allOf ?? []).flatMap((part) => propertiesOf(part, document)),
  ];
}

function operationOf(
  method: string,
  path: string,
  document: OpenApiDocument | undefined,
): OpenApiOperation | undefined {
  const templated = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const methods = document?.paths[templated] ?? document?.paths[templated.replace(/^\/v1/, '')];
  return methods?.[method.toLowerCase()];
}

/**
 * The routes to fuzz: every route the app serves (`METHOD /path`, from its route table), with the query parameters
 * and body fields its OpenAPI operation documents, when there is one.
 */
export function fuzzRoutes(served: readonly string[], document?: OpenApiDocument): FuzzRoute[] {
  return served.map((entry) => {
    const [method = 'GET', path = '/'] = entry.split(' ');
    const operation = operationOf(method, path, document);
    const query = (operation?.parameters ?? [])
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => parameter.name);
    const body = document ? propertiesOf(operation?.requestBody?.content?.['application/json']?.schema, document) : [];
    return { method, path, query, body };
  });
}

/** Every property name the document's schemas declare: field names to try on any route. */
export function openApiFieldNames(document: OpenApiDocument): string[] {
  const schemas = Object.values(document.components?.schemas ?? {});
  return [...new Set(schemas.flatMap((schema) => propertiesOf(schema, document)))];
}
