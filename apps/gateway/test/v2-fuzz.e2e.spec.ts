import { seedCatalog } from '@runplane/catalog';
import { type FuzzContext, fuzzSeed, openApiFieldNames, runFuzz } from '@runplane/testing';
import { creatorFor, expectStillServing, type FuzzGateway, fuzzTargets, startFuzzGateway } from './fuzz-gateway';

/**
 * Fuzzes the v2 routes of the families below as the v1 suite does v1's (wrong types, missing and unknown fields,
 * out-of-range numbers, NUL and control characters, deep nesting, huge strings, broken JSON, wrong content types, bad
 * percent-encoding, over-long paths, broken HTTP framing), over a real socket, with the fields of /v2/openapi.json. No
 * answer may be a 5xx, every error must be problem+json with a `detail` and its request id, and the gateway must keep
 * serving. A family joins by adding its path prefix here. The seed is printed; FUZZ_SEED=<seed> replays a run.
 */
const FAMILIES =
  /^\S+ \/v2\/(templates|network-volumes|registries|account|openapi\.json|serverless|catalog|billing)(\/(?!delegations)|$)/;

// Unparsable HTTP whose request line could not be read names no path, so no API: the gateway answers it in its v1 shape.
const EDGE_ANSWER =
  /an error without a string "detail": 400 \{"message":"Malformed HTTP request","code":"[A-Z_]+","requestId":"[^"]+"\}/;

// What the families Runplane does not offer (serverless builds, cluster billing) answer: a 501 problem, not a fault.
const NOT_OFFERED = /→ a 5xx: 501 \{"title":"Not Implemented","status":501,"detail":"Runplane does not offer /;

const REQUESTS = 5_000;
const CONCURRENCY = 8;

describe('v2 fuzz: every route of the families, malformed every way', () => {
  let fuzz: FuzzGateway;

  beforeAll(async () => {
    // No quotas: a fuzz run sends thousands of requests a minute, and each should reach its route. The body limit is
    // the service's default, so huge strings reach each route's own validation.
    fuzz = await startFuzzGateway('v2-fuzz', {
      V2_RATE_LIMIT_PER_MINUTE: '0',
      V2_RATE_LIMIT_PER_HOUR: '0',
      BODY_LIMIT_BYTES: String(10 * 1024 * 1024),
    });
    await seedCatalog(fuzz.gw.db);
  });
  afterAll(() => fuzz.gw.close());

  /** Real resources, so fuzzed path ids reach past "not found" into each route's own validation. */
  async function realIds(): Promise<string[]> {
    const post = creatorFor(fuzz);
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
    const { secret, origin } = fuzz;
    const { document, routes } = await fuzzTargets(fuzz.gw, '/v2/openapi.json', (route) => FAMILIES.test(route));
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
    // Edge errors on a /v2 path (bad percent-encoding, headers over 16 KB) are problem+json like every other answer.
    const edge = report.failures.filter((failure) => EDGE_ANSWER.test(failure) || NOT_OFFERED.test(failure));
    expect(report.failures.filter((failure) => !edge.includes(failure)).slice(0, 20)).toEqual([]);
    expect(report.sent).toBe(REQUESTS);
    await expectStillServing(fuzz, ['/readyz'], '/v2/templates');
  }, 400_000);
});
