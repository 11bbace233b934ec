// Public endpoints end to end on the local driver: an owner publishes an echo endpoint under a model name, two other
// accounts call it on the job API with their own keys (jobs run on a real examples/echo-worker process), see only
// their own jobs, and are billed for them through the usage queue and the billing aggregator; the owner is not.
import type { BillingRecordDto } from '@runplane/contracts';
import type { NestFastifyApplication } from '@runplane/http';
import { type ApiAnswer, callWithKey, ECHO_WORKER_TEMPLATE, pollUntil, TEST_REDIS_URL } from '@runplane/testing';
import { startAggregatorInProcess } from '../../apps/billing-aggregator/test/in-process';
import { type PlatformHarness, startPlatform } from '../../apps/scheduler/test/harness';
import { accountWithKey } from '../../apps/scheduler/test/test-account';

type Caller = { accountId: string; secret: string };
type Job = { id: string; status: string; executionTime?: number; workerId?: string; output?: { echo: unknown } };
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];
const MODEL = 'echo-public';

describe('public endpoints on the local driver', () => {
  let p: PlatformHarness;
  let aggregator: NestFastifyApplication;
  let endpointId: string;
  let alice: Caller;
  let bob: Caller;

  beforeAll(async () => {
    p = await startPlatform('public-endpoints', {
      jobRouter: true,
      jobRouterEnv: { JOB_TAKE_WAIT_MS: '1000', JOB_HEARTBEAT_INTERVAL_MS: '2000', JOB_SWEEP_INTERVAL_MS: '300' },
    });
    aggregator = await startAggregatorInProcess({
      env: {
        DATABASE_URL: p.config.DATABASE_URL,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: p.prefix,
        LOG_LEVEL: 'warn',
      },
      concurrency: 2,
    });
    alice = await accountWithKey(p.db, 'public-alice');
    bob = await accountWithKey(p.db, 'public-bob');
    const template = await p.v1('POST', '/templates', ECHO_WORKER_TEMPLATE);
    const endpoint = await p.v1('POST', '/endpoints', {
      name: 'echo-owner',
      templateId: (template.body as { id: string }).id,
      gpuTypeIds: ['NVIDIA GeForce RTX 4090'],
      gpuCount: 1,
      workersMin: 1,
      workersMax: 1,
      idleTimeout: 60,
    });
    expect(endpoint.status).toBe(200);
    endpointId = (endpoint.body as { id: string }).id;
  }, 180_000);

  afterAll(async () => {
    await aggregator?.close();
    await p?.close();
  }, 60_000);

  const v1As = (caller: Caller, method: string, path: string, body?: unknown): Promise<ApiAnswer> =>
    callWithKey(`${p.gatewayUrl}/v1${path}`, caller.secret, method, body);
  const jobApi = (caller: Caller, path: string, body?: unknown): Promise<{ status: number; body: Job }> =>
    callWithKey(`${p.jobApiUrl}/v2/${path}`, caller.secret, body === undefined ? 'GET' : 'POST', body).then(
      (answer) => ({ status: answer.status, body: answer.body as Job }),
    );

  const finished = (caller: Caller, id: string) =>
    pollUntil(
      async () => {
        const answer = await jobApi(caller, `${MODEL}/status/${id}`);
        return FINAL.includes(answer.body.status) ? answer.body : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, description: `job ${id} to finish` },
    );

  /** The caller's endpoint billing records grouped by job (podId), once `jobId` has one. */
  const billedJob = (caller: Caller, jobId: string) =>
    pollUntil(
      async () => {
        const since = new Date(Date.now() - 2 * 3_600_000).toISOString();
        const answer = await v1As(caller, 'GET', `/billing/endpoints?grouping=podId&bucketSize=day&startTime=${since}`);
        const records = answer.body as BillingRecordDto[];
        return records.find((record) => record.podId === jobId);
      },
      { timeoutMs: 60_000, intervalMs: 300, description: `billing record of job ${jobId}` },
    );

  it('publishes the endpoint and lists the model with its input and output description', async () => {
    const published = await p.v1('POST', '/public-endpoints', {
      name: MODEL,
      endpointId,
      description: 'Echoes its input',
      input: { type: 'object', properties: { text: { type: 'string' }, sleepMs: { type: 'integer' } } },
      output: { type: 'object', properties: { echo: {} } },
    });
    expect(published.status).toBe(201);
    const list = await callWithKey(`${p.jobApiUrl}/v2/public-endpoints`, alice.secret, 'GET');
    expect(list.body).toEqual({
      models: [
        {
          name: MODEL,
          description: 'Echoes its input',
          input: { type: 'object', properties: { text: { type: 'string' }, sleepMs: { type: 'integer' } } },
          output: { type: 'object', properties: { echo: {} } },
          pricePerRequest: null,
        },
      ],
    });
  });

  it('runs both callers’ jobs on the worker, each seeing only its own, never the worker', async () => {
    const sync = await jobApi(alice, `${MODEL}/runsync?wait=60000`, { input: { text: 'from alice' } });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ status: 'COMPLETED', output: { echo: { text: 'from alice' } } });
    expect(sync.body.workerId).toBeUndefined();

    const queued = await jobApi(bob, `${MODEL}/run`, { input: { text: 'from bob' } });
    expect(queued.status).toBe(200);
    const done = await finished(bob, queued.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', output: { echo: { text: 'from bob' } } });
    expect(done.workerId).toBeUndefined();

    for (const path of [`status/${queued.body.id}`, `stream/${queued.body.id}`, `cancel/${queued.body.id}`]) {
      const answer = await jobApi(alice, `${MODEL}/${path}`, path.startsWith('cancel') ? {} : undefined);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
    for (const path of ['health', 'metrics', 'requests']) {
      expect((await jobApi(bob, `${MODEL}/${path}`)).status).toBe(404);
    }
    expect((await jobApi(alice, `${endpointId}/status/${sync.body.id}`)).status).toBe(404);
    expect((await v1As(alice, 'GET', `/endpoints/${endpointId}`)).status).toBe(404);
    // The owner's management API shows the endpoint as before.
    expect((await p.v1('GET', `/endpoints/${endpointId}`)).status).toBe(200);
  }, 120_000);

  it('bills each caller for its own jobs (execution time x the worker price), never the owner', async () => {
    const job = await jobApi(alice, `${MODEL}/run`, { input: { text: 'timed', sleepMs: 1500 } });
    const done = await finished(alice, job.body.id);
    expect(done.status).toBe('COMPLETED');

    const record = await billedJob(alice, job.body.id);
    const event = (await p.usageEvents()).get(`job.${job.body.id}`);
    const [worker] = await p.db.pod.findMany({ where: { endpointId } });
    expect(event).toMatchObject({
      type: 'job.billed',
      accountId: alice.accountId,
      model: MODEL,
      executionMs: done.executionTime,
      costPerHr: worker?.costPerHr.toFixed(6),
      pricePerRequest: null,
    });
    const expected = ((done.executionTime ?? 0) * Number(worker?.costPerHr)) / 3_600_000;
    // Reads round sums to 6 decimal places.
    expect(record.amount).toBeCloseTo(expected, 5);
    expect(record.amount).toBeGreaterThan(0);
    expect(record.timeBilledMs).toBe(done.executionTime);

    const byModel = await v1As(alice, 'GET', '/billing/endpoints?bucketSize=day');
    expect((byModel.body as BillingRecordDto[]).map((r) => r.endpointId)).toContain(MODEL);
    // v2: RunPod's public-endpoint billing holds it; the caller's own serverless billing does not.
    const v2 = await callWithKey(`${p.gatewayUrl}/v2/billing/endpoints?bucketSize=day`, alice.secret, 'GET');
    const v2Total = (v2.body as { metadata: { totals: { totalAmount: number } } }).metadata.totals.totalAmount;
    expect(v2Total).toBeGreaterThanOrEqual(record.amount);
    const serverless = await callWithKey(`${p.gatewayUrl}/v2/billing/serverless?bucketSize=day`, alice.secret, 'GET');
    expect(serverless.body).toMatchObject({ records: [] });
    const bobs = await v1As(bob, 'GET', '/billing/endpoints?grouping=podId&bucketSize=day');
    expect((bobs.body as BillingRecordDto[]).map((r) => r.podId)).not.toContain(job.body.id);
    const owners = await p.v1('GET', '/billing/endpoints?grouping=podId&bucketSize=day');
    expect((owners.body as BillingRecordDto[]).map((r) => r.podId)).not.toContain(job.body.id);
  }, 120_000);

  it('bills the per-request price when the owner sets one', async () => {
    expect((await p.v1('PATCH', `/public-endpoints/${MODEL}`, { pricePerRequest: 0.25 })).status).toBe(200);
    // The job API trusts a resolved model for a few seconds: wait until the price is in force.
    const job = await pollUntil(
      async () => {
        const answer = await jobApi(bob, `${MODEL}/runsync?wait=60000`, { input: { text: 'priced' } });
        await billedJob(bob, answer.body.id);
        const event = (await p.usageEvents()).get(`job.${answer.body.id}`);
        return event?.['pricePerRequest'] === '0.250000' ? answer.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, description: 'a job billed at the per-request price' },
    );
    expect((await billedJob(bob, job.id)).amount).toBe(0.25);
  }, 120_000);

  it('answers 404 once unpublished, and the name can be published again', async () => {
    const before = await jobApi(alice, `${MODEL}/run`, { input: { text: 'last' } });
    await finished(alice, before.body.id);
    expect((await p.v1('DELETE', `/public-endpoints/${MODEL}`)).status).toBe(204);
    await pollUntil(async () => (await jobApi(alice, `${MODEL}/run`, { input: {} })).status === 404 || undefined, {
      timeoutMs: 20_000,
      description: 'the unpublished model to answer 404',
    });
    expect((await jobApi(alice, `${MODEL}/status/${before.body.id}`)).status).toBe(404);
    expect((await callWithKey(`${p.jobApiUrl}/v2/public-endpoints`, bob.secret, 'GET')).body).toEqual({ models: [] });
    expect((await p.v1('POST', '/public-endpoints', { name: MODEL, endpointId })).status).toBe(201);
  }, 60_000);
});
