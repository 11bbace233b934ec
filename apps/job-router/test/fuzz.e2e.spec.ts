import * as contracts from '@runplane/contracts';
import { type FuzzContext, fuzzRoutes, fuzzSeed, runFuzz, servedRoutes } from '@runplane/testing';
import { request } from 'undici';
import { bearer, type JobRouterHarness, startJobRouter } from './harness';

/**
 * Fuzzes every route the job-router serves (its route table): the job API and the worker protocol, with the field
 * names of the job API's schemas: wrong types, missing and unknown fields, out-of-range numbers, NUL and control
 * characters, deep nesting, huge strings, broken JSON, wrong content types, bad percent-encoding, over-long paths and
 * broken HTTP framing, over a real socket. No answer may be a 5xx, every error must be in the job API's shape with
 * its request id, and the job-router must still run jobs afterwards. The seed is printed; FUZZ_SEED=<seed> replays.
 *
 * Client routes target an endpoint whose jobs an echo worker completes, so /runsync and the OpenAI routes answer
 * instead of holding their connection; worker routes target another endpoint, so fuzzed takes take none of them.
 */

const REQUESTS = 10_000;
const CONCURRENCY = 8;

/** Field names of every object schema the job API's contracts declare (bodies and queries alike). */
function contractFieldNames(): string[] {
  const shapes = Object.values(contracts).flatMap((value) =>
    typeof value === 'object' &&
    value !== null &&
    'shape' in value &&
    typeof value.shape === 'object' &&
    value.shape !== null
      ? Object.keys(value.shape)
      : [],
  );
  return [...new Set(shapes)];
}

describe('job API and worker protocol fuzz: every route, malformed every way', () => {
  let h: JobRouterHarness;
  let secret: string;
  let clientEndpoint: string;
  let workerEndpoint: string;
  let origin: string;
  let echoing = true;
  let echo: Promise<void>;

  /** A worker that completes every job of the client endpoint, answering with the job's id (inputs may nest 100 deep). */
  async function echoWorker(token: string): Promise<void> {
    const headers = { ...bearer(token), 'content-type': 'application/json' };
    while (echoing) {
      const take = await h.inject({ method: 'GET', url: `/v2/${clientEndpoint}/job-take/w-echo`, headers });
      if (take.statusCode !== 200) continue;
      const job = take.json<{ id: string }>();
      const payload = JSON.stringify({ output: { echoed: job.id } });
      await h.inject({ method: 'POST', url: `/v2/${clientEndpoint}/job-done/w-echo/${job.id}`, headers, payload });
    }
  }

  beforeAll(async () => {
    h = await startJobRouter('jr-fuzz', { JOB_TAKE_WAIT_MS: '1000', JOB_STREAM_WAIT_MS: '50' });
    const account = await h.accountWithKey();
    secret = account.secret;
    clientEndpoint = await h.endpoint(account.accountId);
    workerEndpoint = await h.endpoint(account.accountId);
    echo = echoWorker(await h.workerToken(clientEndpoint, 'w-echo'));
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.getHttpServer().address();
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    echoing = false;
    await echo;
    await h.close();
  });

  const run = async (endpointId: string, input: object) =>
    (
      await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers: bearer(secret), payload: { input } })
    ).json<{ id: string }>().id;

  it('answers 10,000 malformed requests without a 5xx, every error job-shaped with its request id, and keeps running jobs', async () => {
    const seed = fuzzSeed();
    console.info(
      `job API fuzz seed ${seed} (replay: FUZZ_SEED=${seed} npm run test:unit -- apps/job-router/test/fuzz.e2e.spec.ts)`,
    );
    const served = servedRoutes(h.app.getHttpAdapter().getInstance().printRoutes());
    expect(served.filter((entry) => entry.includes(':workerId')).length).toBeGreaterThan(3);
    const jobIds = [
      await run(clientEndpoint, { n: 1 }),
      await run(workerEndpoint, { n: 2 }),
      await run(workerEndpoint, { n: 3 }),
    ];
    const workerToken = await h.workerToken(workerEndpoint, 'w-fuzz');
    const workerSide = { endpointId: [workerEndpoint], workerId: ['w-fuzz'], jobId: jobIds };
    const routes = fuzzRoutes(served).map((route) =>
      route.path.includes(':workerId') ? { ...route, ids: workerSide } : route,
    );
    const context: FuzzContext = {
      ids: { endpointId: [clientEndpoint], jobId: jobIds },
      authorizations: [
        `Bearer ${secret}`,
        `Bearer ${secret}`,
        secret,
        `Bearer ${workerToken}`,
        workerToken,
        'Bearer x',
        `Bearer ${'a'.repeat(5_000)}`,
        '',
        undefined,
      ],
      fieldPool: contractFieldNames(),
    };
    const report = await runFuzz({
      origin,
      routes,
      context,
      seed,
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      errorField: 'error',
    });
    console.info(`job API fuzz seed ${seed}: answers by status ${JSON.stringify(report.byStatus)}`);
    expect(report.failures.slice(0, 20)).toEqual([]);
    expect(report.sent).toBe(REQUESTS);
    for (const path of ['/healthz', '/readyz']) {
      const answer = await request(`${origin}${path}`);
      expect(answer.statusCode).toBe(200);
      await answer.body.dump();
    }
    const runsync = await h.inject({
      method: 'POST',
      url: `/v2/${clientEndpoint}/runsync`,
      headers: bearer(secret),
      payload: { input: { after: 'fuzz' } },
    });
    const done = runsync.json<{ id: string; status: string; output: unknown }>();
    expect(done).toMatchObject({ status: 'COMPLETED', output: { echoed: done.id } });
  }, 400_000);
});
