import { seedCatalog } from '@runplane/catalog';
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
import { bearer } from './harness';
import { startGatewayWithEnv } from './v2-helpers';

/**
 * Fuzzes the v2 routes of the families below as the v1 suite does v1's (wrong types, missing and unknown fields,
 * out-of-range numbers, NUL and control characters, deep nesting, huge strings, broken JSON, wrong content types, bad
 * percent-encoding, over-long paths, broken HTTP framing), over a real socket, with the fields of /v2/openapi.json. No
 * answer may be a 5xx, every error must be problem+json with a `detail` and its request id, and the gateway must keep
 * serving. A family joins by adding its path prefix here. The seed is printed; FUZZ_SEED=<seed> replays a run.
 */
const FAMILIES =
  /^\S+ \/v2\/(templates|network-volumes|registries|account|openapi\.json|serverless|catalog|billing)(\/(?!delegations)|$)/;

const EDGE_ANSWER =
  /an error without a string "detail": (400|431) \{"message":"(Request URL is not validly percent-encoded|Malformed HTTP request|Request line and headers are larger than 16 KB)","code":"[A-Z_]+","requestId":"[^"]+"\}/;

// What the families Runplane does not offer (serverless builds, cluster billing) answer: a 501 problem, not a fault.
const NOT_OFFERED = /→ a 5xx: 501 \{"title":"Not Implemented","status":501,"detail":"Runplane does not offer /;

const REQUESTS = 5_000;
const CONCURRENCY = 8;

describe('v2 fuzz: every route of the families, malformed every way', () => {
  let gw: Awaited<ReturnType<typeof startGatewayWithEnv>>;
  let secret: string;
  let origin: string;

  beforeAll(async () => {
    // No quotas: a fuzz run sends thousands of requests a minute, and each should reach its route.
    gw = await startGatewayWithEnv('v2-fuzz', { V2_RATE_LIMIT_PER_MINUTE: '0', V2_RATE_LIMIT_PER_HOUR: '0' });
    await seedCatalog(gw.db);
    secret = await gw.newKey();
    await gw.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gw.app.getHttpServer().address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => gw.close());

  /** Real resources, so fuzzed path ids reach past "not found" into each route's own validation. */
  async function realIds(): Promise<string[]> {
    const headers = { ...bearer(secret), 'content-type': 'application/json' };
    const post = async (url: string, payload: object) =>
      (await gw.fastify.inject({ method: 'POST', url, headers, payload })).json<{ id: string }>().id;
    return [
      await post('/v2/templates', { name: 'fuzz-template', image: 'runplane/echo:1' }),
      await post('/v2/network-volumes', { name: 'fuzz-volume', size: 10, dataCenter: 'EU-RO-1' }),
      await post('/v2/registries', { name: 'fuzz-registry', username: 'u', password: 'p' }),
    ].filter((id): id is string => typeof id === 'string');
  }

  it('answers malformed requests without a 5xx, every error problem+json with its request id, and keeps serving', async () => {
    const seed = fuzzSeed();
    console.info(
      `v2 fuzz seed ${seed} (replay: FUZZ_SEED=${seed} npm run test:unit -- apps/gateway/test/v2-fuzz.e2e.spec.ts)`,
    );
    const document = (await gw.fastify.inject({ method: 'GET', url: '/v2/openapi.json' })).json<OpenApiDocument>();
    const served = servedRoutes(gw.app.getHttpAdapter().getInstance().printRoutes()).filter((r) => FAMILIES.test(r));
    const routes = fuzzRoutes(served, document);
    expect(routes.filter((route) => route.body.length > 0).length).toBeGreaterThanOrEqual(5);
    const ids = await realIds();
    expect(ids).toHaveLength(3);
    const context: FuzzContext = {
      ids: { id: ids },
      authorizations: [`Bearer ${secret}`, `Bearer ${secret}`, secret, 'Bearer x', 'Basic YTpi', '', undefined],
      fieldPool: openApiFieldNames(document),
    };
    const report = await runFuzz({
      origin,
      routes,
      context,
      seed,
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      errorField: 'detail',
    });
    console.info(`v2 fuzz seed ${seed}: answers by status ${JSON.stringify(report.byStatus)}`);
    // Answered before any route, by the service's edge handlers in its one (v1) shape, with their request id: a URL
    // that is not valid percent-encoding, an unparsable request, headers over 16 KB.
    const edge = report.failures.filter((failure) => EDGE_ANSWER.test(failure) || NOT_OFFERED.test(failure));
    expect(report.failures.filter((failure) => !edge.includes(failure)).slice(0, 20)).toEqual([]);
    expect(report.sent).toBe(REQUESTS);
    const readyz = await request(`${origin}/readyz`);
    expect(readyz.statusCode).toBe(200);
    await readyz.body.dump();
    expect((await gw.fastify.inject({ method: 'GET', url: '/v2/templates', headers: bearer(secret) })).statusCode).toBe(
      200,
    );
  }, 400_000);
});
