import {
  type FuzzContext,
  fuzzRoutes,
  fuzzSeed,
  type OpenApiDocument,
  openApiFieldNames,
  runFuzz,
  servedRoutes,
} from '@runplane/testing';
import { request } from 'undici';
import { bearer, type GatewayHarness, startGateway } from './harness';

/**
 * Fuzzes every route the gateway serves (its route table), with the query parameters and body fields its own OpenAPI
 * document gives each v1 operation: wrong types, missing and unknown fields, out-of-range numbers, NUL and control
 * characters, deep nesting, huge strings, broken JSON, wrong content types, bad percent-encoding, over-long paths and
 * broken HTTP framing, over a real socket. No answer may be a 5xx, every error must be v1-shaped with its request id,
 * and the gateway must keep serving afterwards. The seed is printed; FUZZ_SEED=<seed> replays a run.
 */

const REQUESTS = 10_000;
const CONCURRENCY = 8;

describe('v1 fuzz: every route, malformed every way', () => {
  let gw: GatewayHarness;
  let secret: string;
  let origin: string;

  beforeAll(async () => {
    gw = await startGateway('fuzz');
    ({ secret } = await gw.accountWithKey('ALL'));
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gw.app.getHttpServer().address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => gw.close());

  /** Real resources, so fuzzed path ids reach past "not found" into each route's own validation. */
  async function realIds(): Promise<string[]> {
    const headers = { ...bearer(secret), 'content-type': 'application/json' };
    const post = async (url: string, payload: object) =>
      (await gw.inject({ method: 'POST', url, headers, payload })).json<{ id: string }>().id;
    const templateId = await post('/v1/templates', {
      name: 'fuzz-template',
      imageName: 'runplane/echo:1',
      isServerless: true,
    });
    const endpointId = await post('/v1/endpoints', { name: 'fuzz-endpoint', templateId });
    const { keyId } = await gw.accountWithKey('READ_ONLY');
    return [templateId, endpointId, keyId].filter((id): id is string => typeof id === 'string');
  }

  it('answers 10,000 malformed requests without a 5xx, every error v1-shaped with its request id, and keeps serving', async () => {
    const seed = fuzzSeed();
    console.info(
      `v1 fuzz seed ${seed} (replay: FUZZ_SEED=${seed} npm run test:unit -- apps/gateway/test/fuzz.e2e.spec.ts)`,
    );
    const document = (await gw.inject({ method: 'GET', url: '/v1/openapi.json' })).json<OpenApiDocument>();
    // The v2 management API answers problem+json and has its own fuzz suite (v2-fuzz.e2e.spec.ts).
    const served = servedRoutes(gw.app.getHttpAdapter().getInstance().printRoutes()).filter(
      (route) => !/^\S+ \/v2(\/|$)/.test(route),
    );
    const routes = fuzzRoutes(served, document);
    expect(routes.filter((route) => route.body.length > 0).length).toBeGreaterThan(5);
    const ids = await realIds();
    const params = new Set(
      served.flatMap((entry) => entry.match(/:[A-Za-z0-9_]+/g) ?? []).map((name) => name.slice(1)),
    );
    const context: FuzzContext = {
      ids: Object.fromEntries([...params].map((name) => [name, ids])),
      authorizations: [
        `Bearer ${secret}`,
        `Bearer ${secret}`,
        secret,
        'Bearer x',
        `Bearer ${'a'.repeat(5_000)}`,
        'Basic YTpi',
        '',
        undefined,
      ],
      fieldPool: openApiFieldNames(document),
    };
    const report = await runFuzz({
      origin,
      routes,
      context,
      seed,
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      errorField: 'message',
    });
    console.info(`v1 fuzz seed ${seed}: answers by status ${JSON.stringify(report.byStatus)}`);
    expect(report.failures.slice(0, 20)).toEqual([]);
    expect(report.sent).toBe(REQUESTS);
    const healthz = await request(`${origin}/healthz`);
    expect(healthz.statusCode).toBe(200);
    await healthz.body.dump();
    const readyz = await request(`${origin}/readyz`);
    expect(readyz.statusCode).toBe(200);
    await readyz.body.dump();
    expect((await gw.inject({ method: 'GET', url: '/v1/apikeys', headers: bearer(secret) })).statusCode).toBe(200);
  }, 400_000);
});
