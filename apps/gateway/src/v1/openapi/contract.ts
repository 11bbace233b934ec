import {
  flattenSchema,
  pointerResolver,
  type PropertyTypes,
  requiredProperties,
  type RefResolver,
  type SchemaNode,
} from './schema-paths';

/** One operation of an API document, reduced to what wire compatibility depends on. */
export interface ContractOperation {
  method: string;
  path: string;
  operationId: string | null;
  /** The lowest documented 2xx status, or null when none is documented. */
  successStatus: number | null;
  /** Query parameter → its flattened schema. */
  query: Record<string, PropertyTypes>;
  /** Name of the JSON request body schema in `schemas`, or null. */
  request: string | null;
  /** Name of the success response body schema in `schemas`, or null (no body). */
  response: string | null;
  /** Content type of the success response body, or null. */
  responseContentType: string | null;
}

/** A named schema, flattened with every `$ref` resolved. */
export interface ContractSchema {
  required: string[];
  properties: PropertyTypes;
}

/** An API document reduced to operations and flattened schemas: what the conformance test compares. */
export interface ApiContract {
  operations: ContractOperation[];
  schemas: Record<string, ContractSchema>;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function child(node: unknown, ...keys: string[]): unknown {
  let current = node;
  for (const key of keys) current = isNode(current) ? current[key] : undefined;
  return current;
}

/** A path with its parameter names erased, so `/pods/{podId}` and `/pods/{id}` compare equal. */
export const pathShape = (path: string): string => path.replace(/\{[^}]+\}/g, '{}');

class ContractBuilder {
  readonly schemas: Record<string, ContractSchema> = {};
  private readonly resolve: RefResolver;

  constructor(private readonly document: unknown) {
    this.resolve = pointerResolver(document);
  }

  operations(): ContractOperation[] {
    const paths = child(this.document, 'paths');
    if (!isNode(paths)) return [];
    return Object.entries(paths).flatMap(([path, item]) =>
      METHODS.filter((method) => isNode(child(item, method))).map((method) =>
        this.operation(path, method, child(item, method) as SchemaNode),
      ),
    );
  }

  private operation(path: string, method: string, op: SchemaNode): ContractOperation {
    const operationId = typeof op.operationId === 'string' ? op.operationId : null;
    const fallback = operationId ?? `${method.toUpperCase()} ${path}`;
    const statuses = Object.keys(isNode(op.responses) ? op.responses : {})
      .map(Number)
      .filter((status) => status >= 200 && status < 300)
      .sort((a, b) => a - b);
    const successStatus = statuses[0] ?? null;
    const content = child(op, 'responses', String(successStatus), 'content');
    const contentType = isNode(content) ? (Object.keys(content)[0] ?? null) : null;
    return {
      method: method.toUpperCase(),
      path,
      operationId,
      successStatus,
      query: this.query(op),
      request: this.named(child(op, 'requestBody', 'content', 'application/json', 'schema'), `${fallback} request`),
      response: contentType ? this.named(child(content, contentType, 'schema'), `${fallback} response`) : null,
      responseContentType: contentType,
    };
  }

  private query(op: SchemaNode): Record<string, PropertyTypes> {
    const query: Record<string, PropertyTypes> = {};
    for (const raw of Array.isArray(op.parameters) ? op.parameters : []) {
      const parameter = isNode(raw) && typeof raw.$ref === 'string' ? this.resolve(raw.$ref) : raw;
      if (!isNode(parameter) || parameter.in !== 'query' || typeof parameter.name !== 'string') continue;
      query[parameter.name] = flattenSchema(parameter.schema ?? {}, this.resolve);
    }
    return query;
  }

  /** Flattens a body schema under its component name (or `fallback` when inline); returns that name. */
  private named(schema: unknown, fallback: string): string | null {
    if (!isNode(schema)) return null;
    const ref = typeof schema.$ref === 'string' ? schema.$ref : null;
    const name = ref?.startsWith('#/components/schemas/') ? ref.slice('#/components/schemas/'.length) : fallback;
    this.schemas[name] ??= {
      required: requiredProperties(schema, this.resolve),
      properties: flattenSchema(schema, this.resolve),
    };
    return name;
  }
}

/** Reduces an OpenAPI document (3.0 or 3.1) to its contract: operations and flattened body schemas. */
export function extractContract(document: unknown): ApiContract {
  const builder = new ContractBuilder(document);
  const operations = builder.operations();
  return { operations, schemas: builder.schemas };
}
