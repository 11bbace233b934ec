import { bearer, type GatewayHarness, startGateway } from './harness';
import type { OpenApiDocument } from '../src/v1/openapi/document';
import { V1_ROUTES, v1OpenApiDocument } from '../src/v1/openapi/routes';
import { pointerResolver } from '../src/v1/openapi/schema-paths';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace']);

/** Every `$ref` string anywhere in a JSON value. */
function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, found));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child);
      else refsIn(child, found);
    }
  }
  return found;
}

/** `METHOD /path` of every route Fastify serves, read from its route tree (HEAD twins left out). */
function servedRoutes(tree: string): string[] {
  const parents: string[] = [];
  const served: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (parents[depth - 1] ?? '') + match[2]!;
    parents.length = depth;
    parents[depth] = path;
    for (const method of (match[3] ?? '').split(', '))
      if (method && method !== 'HEAD') served.push(`${method} ${path}`);
  }
  return served;
}

const operations = (doc: OpenApiDocument) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op: op as Record<string, unknown> })),
  );

describe('the generated v1 OpenAPI document', () => {
  const doc = v1OpenApiDocument();

  it('is OpenAPI 3.1 with info, a bearer security scheme and paths', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: expect.any(String) }));
    expect(doc.components.securitySchemes).toEqual({
      ApiKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
    for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/[A-Za-z0-9._/{}-]*$/);
  });

  it("documents the endpoint's type as a Runplane extension on create, update and read", () => {
    const schemas = doc.components.schemas as Record<string, { properties?: Record<string, Record<string, unknown>> }>;
    const typed = Object.entries(schemas).filter(([, schema]) => schema.properties?.['type']?.['enum']);
    const endpointSchemas = typed.filter(([name]) => name.startsWith('Endpoint')).map(([name]) => name);
    expect(endpointSchemas).toEqual(expect.arrayContaining(['Endpoint', 'EndpointCreateInput', 'EndpointUpdateInput']));
    for (const name of ['Endpoint', 'EndpointCreateInput', 'EndpointUpdateInput']) {
      expect(schemas[name]?.properties?.['type']).toMatchObject({
        enum: ['QUEUE', 'LOAD_BALANCER'],
        description: expect.stringMatching(/^Runplane extension/),
      });
    }
  });

  it('has one operation per route, each with a unique operationId, a success response and only HTTP methods', () => {
    const ops = operations(doc);
    expect(ops).toHaveLength(V1_ROUTES.length);
    const ids = ops.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, op } of ops) {
      expect(HTTP_METHODS.has(method)).toBe(true);
      const statuses = Object.keys(op.responses as object);
      expect(statuses.some((status) => /^2\d\d$/.test(status))).toBe(true);
    }
  });

  it('declares every path parameter of a path template, required and in path', () => {
    for (const { path, op } of operations(doc)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name);
      const declared = (op.parameters as { name: string; in: string; required: boolean }[]).filter(
        (p) => p.in === 'path',
      );
      expect(declared.map((p) => p.name).sort()).toEqual([...inPath].sort());
      for (const parameter of declared) expect(parameter.required).toBe(true);
    }
  });

  it('resolves every $ref to a component schema', () => {
    const resolve = pointerResolver(doc);
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\/[A-Za-z0-9._-]+$/);
      expect({ ref, target: resolve(ref) === undefined ? 'missing' : 'found' }).toEqual({ ref, target: 'found' });
    }
  });

  it('keeps component schemas free of per-schema $schema and $id', () => {
    for (const schema of Object.values(doc.components.schemas)) {
      expect(schema).not.toHaveProperty('$schema');
      expect(schema).not.toHaveProperty('$id');
    }
  });

  it('marks only the document and the docs page public', () => {
    const open = operations(doc).filter(({ op }) => Array.isArray(op.security) && op.security.length === 0);
    expect(open.map(({ path }) => path).sort()).toEqual(['/docs', '/openapi.json']);
  });
});

describe('GET /v1/openapi.json and /v1/docs', () => {
  let gateway: GatewayHarness;

  beforeAll(async () => {
    gateway = await startGateway('openapi');
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('serves the document without an API key', async () => {
    const res = await gateway.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual(JSON.parse(JSON.stringify(v1OpenApiDocument())));
  });

  it('serves the document to a caller with a key too (the key is not needed, not refused)', async () => {
    const { secret } = await gateway.accountWithKey();
    const res = await gateway.inject({ method: 'GET', url: '/v1/openapi.json', headers: bearer(secret) });
    expect(res.statusCode).toBe(200);
    expect(res.json().openapi).toBe('3.1.0');
  });

  it.each(['/v1/docs', '/v1/docs/'])(
    'answers %s with the HTML reference page pointing at the document',
    async (url) => {
      const res = await gateway.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toMatch(/<html/i);
      expect(res.body).toContain('/v1/openapi.json');
      expect(res.body).toContain('/v1/docs/js/scalar.js');
    },
  );

  it('serves the reference script itself, so the page works offline', async () => {
    const res = await gateway.inject({ method: 'GET', url: '/v1/docs/js/scalar.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    expect(res.body.length).toBeGreaterThan(100_000);
  });

  it('serves exactly the routes of the table under /v1 (besides the reference page assets)', () => {
    const fastify = gateway.app.getHttpAdapter().getInstance();
    const served = servedRoutes(fastify.printRoutes({ commonPrefix: false }))
      .filter((route) => route.includes(' /v1/') && !route.includes(' /v1/docs/'))
      .sort();
    const table = V1_ROUTES.map((route) => `${route.method} /v1${route.path.replace(/\{([^}]+)\}/g, ':$1')}`).sort();
    expect(served).toEqual(table);
  });
});
