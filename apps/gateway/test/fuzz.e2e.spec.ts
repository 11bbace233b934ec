import { bearer, type GatewayHarness, startGateway } from './harness';

/**
 * Sends thousands of malformed requests to every v1 operation the gateway documents in its own OpenAPI
 * document: wrong types, huge numbers, long strings, unknown enum values, broken JSON and odd path ids. No
 * answer may be a 5xx, every error must be in the v1 shape, and the gateway must keep serving afterwards.
 */

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  enum?: unknown[];
  items?: JsonSchema;
};
interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Deterministic PRNG (mulberry32) so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_IDS = ['x', '..', '%2e%2e%2f', 'a'.repeat(600), '%00', '%F0%9F%92%A5', "'; drop table pods;--", '-1', '0', 'null'];
const ODD_VALUES: unknown[] = [
  null, true, -1, 0, 1e308, -1e308, 2 ** 63, 1.5, 'x'.repeat(20_000), '', 'NOT_AN_ENUM', [], [null], {}, { a: { b: { c: 1 } } },
  ['x'.repeat(500)], [1, 2, 3], '12:00', '2024-99-99T99:99:99Z',
];
const BROKEN_BODIES = ['{', '[', '{"a":}', 'null', '"str"', '12', '{"a":1,}', '\u0000', '[]', '{"__proto__":{"x":1}}'];

function resolve(schema: JsonSchema | undefined, doc: OpenApiDocument): JsonSchema | undefined {
  const name = schema?.$ref?.split('/').pop();
  return name ? doc.components?.schemas?.[name] : schema;
}

function bodyProperties(operation: Operation, doc: OpenApiDocument): string[] {
  const schema = resolve(operation.requestBody?.content?.['application/json']?.schema, doc);
  return Object.keys(schema?.properties ?? {});
}

interface FuzzRequest {
  method: string;
  url: string;
  payload?: string;
  contentType?: string;
}

function fillPath(path: string, pick: <T>(values: T[]) => T): string {
  return path.replace(/\{[^}]+\}/g, () => pick(ODD_IDS));
}

function requestsFor(path: string, method: string, operation: Operation, doc: OpenApiDocument, seed: number): FuzzRequest[] {
  const next = random(seed);
  const pick = <T>(values: T[]): T => values[Math.floor(next() * values.length)] as T;
  const props = [...bodyProperties(operation, doc), 'unknownField'];
  const queries = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const out: FuzzRequest[] = [];
  for (let i = 0; i < 40; i++) {
    const url = fillPath(path, pick);
    const query = queries.length
      ? `?${pick(queries)}=${encodeURIComponent(String(pick(ODD_VALUES)))}&${pick(queries)}=${pick(['', 'x', 'true', '-1', '9'.repeat(40)])}`
      : '';
    if (method === 'get' || method === 'delete') {
      out.push({ method, url: `/v1${url}${query}` });
      continue;
    }
    const payload =
      i % 4 === 0
        ? pick(BROKEN_BODIES)
        : JSON.stringify(Object.fromEntries(props.filter(() => next() < 0.6).map((p) => [p, pick(ODD_VALUES)])));
    out.push({ method, url: `/v1${url}${query}`, payload, contentType: pick(['application/json', 'application/json', 'text/plain']) });
  }
  return out;
}

function hasMessage(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null && typeof (parsed as { message?: unknown }).message === 'string';
  } catch {
    return false;
  }
}

describe('v1 fuzz: malformed requests never yield a 5xx', () => {
  let gw: GatewayHarness;
  let secret: string;

  beforeAll(async () => {
    gw = await startGateway('fuzz');
    ({ secret } = await gw.accountWithKey('ALL'));
  });
  afterAll(() => gw.close());

  it('answers every malformed request with a v1-shaped 4xx or a success, and keeps serving', async () => {
    const doc = (await gw.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDocument;
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['get', 'post', 'patch', 'put', 'delete'].includes(method))
        .map(([method, operation]) => ({ path: path.replace(/^\/v1/, ''), method, operation })),
    );
    expect(operations.length).toBeGreaterThan(0);
    const requests = operations.flatMap(({ path, method, operation }, index) => requestsFor(path, method, operation, doc, index + 1));
    const total = Math.max(requests.length, 2000);
    const failures: string[] = [];
    for (let i = 0; i < total; i++) {
      const request = requests[i % requests.length] as FuzzRequest;
      const res = await gw.inject({
        method: request.method.toUpperCase() as 'GET',
        url: request.url,
        headers: { ...bearer(secret), ...(request.contentType ? { 'content-type': request.contentType } : {}) },
        ...(request.payload !== undefined ? { payload: request.payload } : {}),
      });
      const shaped = res.statusCode < 400 || hasMessage(res.body);
      if (res.statusCode >= 500 || !shaped) failures.push(`${request.method} ${request.url.slice(0, 120)} → ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(total).toBeGreaterThanOrEqual(2000);
    expect((await gw.inject({ method: 'GET', url: '/v1/apikeys', headers: bearer(secret) })).statusCode).toBe(200);
  }, 300_000);
});
