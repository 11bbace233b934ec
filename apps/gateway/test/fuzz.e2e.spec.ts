import { type FuzzContext, fuzzSeed, openApiFieldNames, runFuzz } from '@runplane/testing';
import { creatorFor, expectStillServing, type FuzzGateway, fuzzTargets, startFuzzGateway } from './fuzz-gateway';

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
  let fuzz: FuzzGateway;

  beforeAll(async () => {
    fuzz = await startFuzzGateway('fuzz');
  });
  afterAll(() => fuzz.gw.close());

  /** Real resources, so fuzzed path ids reach past "not found" into each route's own validation. */
  async function realIds(): Promise<string[]> {
    const post = creatorFor(fuzz);
    const templateId = await post('/v1/templates', {
      name: 'fuzz-template',
      imageName: 'runplane/echo:1',
      isServerless: true,
    });
    const endpointId = await post('/v1/endpoints', { name: 'fuzz-endpoint', templateId });
    const { keyId } = await fuzz.gw.accountWithKey('READ_ONLY');
    return [templateId, endpointId, keyId].filter((id): id is string => typeof id === 'string');
  }

  it('answers 10,000 malformed requests without a 5xx, every error v1-shaped with its request id, and keeps serving', async () => {
    const seed = fuzzSeed();
    console.info(
      `v1 fuzz seed ${seed} (replay: FUZZ_SEED=${seed} npm run test:unit -- apps/gateway/test/fuzz.e2e.spec.ts)`,
    );
    const { secret, origin } = fuzz;
    // The v2 management API answers problem+json and has its own fuzz suite (v2-fuzz.e2e.spec.ts).
    const { document, served, routes } = await fuzzTargets(
      fuzz.gw,
      '/v1/openapi.json',
      (route) => !/^\S+ \/v2(\/|$)/.test(route),
    );
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
    await expectStillServing(fuzz, ['/healthz', '/readyz'], '/v1/apikeys');
  }, 400_000);
});
