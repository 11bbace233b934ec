/**
 * Flattens a JSON schema (OpenAPI 3.0 or 3.1 flavour) into property paths and their JSON types, so two API
 * documents can be compared property by property: `$` is the root, `$.a.b` a nested property, `$.a[]` an array's
 * items, `$.a{}` a map's values. Used by the RunPod conformance test and the script that derives its fixture.
 */

/** A JSON type as a schema names it. */
export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

/** Property path → the JSON types a schema allows there (sorted; empty means "anything"). */
export type PropertyTypes = Record<string, JsonType[]>;

/** A JSON schema node, loosely typed: documents come from JSON. */
export type SchemaNode = { [key: string]: unknown };

/** Looks up a `$ref` (e.g. `#/components/schemas/Pod`) in the document that holds the schema. */
export type RefResolver = (ref: string) => SchemaNode | undefined;

const JSON_TYPES: readonly JsonType[] = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

const isNode = (value: unknown): value is SchemaNode =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A resolver over `#/…` JSON pointers inside one document. */
export function pointerResolver(document: unknown): RefResolver {
  return (ref) => {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = document;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = isNode(node) ? node[key] : undefined;
    }
    return isNode(node) ? node : undefined;
  };
}

function valueType(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string') return 'string';
  return typeof value === 'boolean' ? 'boolean' : 'object';
}

/** The JSON types one node declares directly (type, nullable, const, enum). */
function ownTypes(node: SchemaNode): JsonType[] {
  const types = new Set<JsonType>();
  const declared = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
  for (const type of declared) if (JSON_TYPES.includes(type as JsonType)) types.add(type as JsonType);
  if (node.nullable === true) types.add('null');
  if ('const' in node) types.add(valueType(node.const));
  if (types.size === 0 && Array.isArray(node.enum)) for (const value of node.enum) types.add(valueType(value));
  if (types.size === 0 && (isNode(node.properties) || isNode(node.additionalProperties))) types.add('object');
  if (types.size === 0 && isNode(node.items)) types.add('array');
  return [...types];
}

class Flattener {
  readonly out: PropertyTypes = {};

  constructor(private readonly resolve: RefResolver) {}

  visit(node: unknown, path: string, refs: readonly string[]): void {
    if (!isNode(node)) return this.add(path, []);
    if (typeof node.$ref === 'string') return this.visitRef(node.$ref, path, refs);
    const branches = [node.anyOf, node.oneOf, node.allOf].flatMap((list) => (Array.isArray(list) ? list : []));
    this.add(path, ownTypes(node));
    for (const branch of branches) this.visit(branch, path, refs);
    if (isNode(node.properties)) {
      for (const [name, child] of Object.entries(node.properties)) this.visit(child, `${path}.${name}`, refs);
    }
    if (isNode(node.additionalProperties)) this.visit(node.additionalProperties, `${path}{}`, refs);
    const types = this.out[path] ?? [];
    // RunPod's spec writes maps as `type: object` with `items`: read those items as the map's values.
    if (isNode(node.items)) this.visit(node.items, types.includes('array') ? `${path}[]` : `${path}{}`, refs);
  }

  private visitRef(ref: string, path: string, refs: readonly string[]): void {
    const target = this.resolve(ref);
    if (!target) throw new Error(`unresolvable $ref ${ref} at ${path}`);
    // A cycle (a schema containing itself) stops here: its properties were listed at the outer level.
    if (refs.includes(ref)) return this.add(path, ownTypes(target));
    this.visit(target, path, [...refs, ref]);
  }

  private add(path: string, types: JsonType[]): void {
    const merged = new Set([...(this.out[path] ?? []), ...types]);
    this.out[path] = [...merged].sort();
  }
}

/** Every property path of `schema` with its JSON types, `$ref`s resolved through `resolve`. */
export function flattenSchema(schema: unknown, resolve: RefResolver): PropertyTypes {
  const flattener = new Flattener(resolve);
  flattener.visit(schema, '$', []);
  return flattener.out;
}

/** The top-level required property names of a (possibly `$ref`) object schema. */
export function requiredProperties(schema: unknown, resolve: RefResolver): string[] {
  const node = isNode(schema) && typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
  return isNode(node) && Array.isArray(node.required) ? node.required.filter((n) => typeof n === 'string') : [];
}

/** Whether a value of one of `theirs` types fits `ours` (null aside; integer and number agree; empty = any). */
export function typesCompatible(theirs: readonly JsonType[], ours: readonly JsonType[]): boolean {
  const widen = (types: readonly JsonType[]) =>
    new Set(types.filter((t) => t !== 'null').map((t) => (t === 'integer' ? 'number' : t)));
  const a = widen(theirs);
  const b = widen(ours);
  if (a.size === 0 || b.size === 0) return true;
  return [...a].some((type) => b.has(type));
}
