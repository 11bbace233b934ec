import { createAccountsServices } from '@runplane/accounts';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';
import { jobState } from './redis-state';

/** A READ_ONLY key reads the job API whatever the HTTP method, and changes nothing whatever the method. */
describe('job-router READ_ONLY keys follow what an operation does', () => {
  let h: JobRouterHarness;
  let owner: { accountId: string; secret: string };
  let readOnly: string;
  let endpointId: string;

  beforeAll(async () => {
    h = await startJobRouter('jr-read-only');
    owner = await h.accountWithKey();
    endpointId = await h.endpoint(owner.accountId);
    readOnly = (await createAccountsServices(h.db).apiKeys.create(owner.accountId, { name: 'ro', scope: 'READ_ONLY' }))
      .secret;
  });
  afterAll(() => h.close());

  const state = () => jobState(h.redis, h.config.REDIS_PREFIX);

  async function queuedJob(): Promise<string> {
    const res = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: bearer(owner.secret),
      payload: { input: { n: 1 } },
    });
    expect(res.statusCode).toBe(200);
    return (res.json() as { id: string }).id;
  }

  function expectReadOnlyRefusal(res: { statusCode: number; json(): unknown }): void {
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      error: 'This API key is read-only',
      code: 'UNAUTHORIZED',
      requestId: expect.any(String),
    });
  }

  it('refuses GET /status?ttl=, which moves the job’s deletion time, and leaves the job as it was', async () => {
    const jobId = await queuedJob();
    const before = await state();
    expectReadOnlyRefusal(
      await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${jobId}?ttl=10000`, headers: bearer(readOnly) }),
    );
    expectReadOnlyRefusal(
      await h.inject({ method: 'POST', url: `/v2/${endpointId}/status/${jobId}?ttl=10000`, headers: raw(readOnly) }),
    );
    expect(await state()).toEqual(before);
    // The same request with a key that may write does change the job.
    expect(
      (
        await h.inject({
          method: 'GET',
          url: `/v2/${endpointId}/status/${jobId}?ttl=10000`,
          headers: bearer(owner.secret),
        })
      ).statusCode,
    ).toBe(200);
    expect(await state()).not.toEqual(before);
  });

  it('reads /status without ttl on GET and on POST, as RunPod clients send it', async () => {
    const jobId = await queuedJob();
    const before = await state();
    for (const method of ['GET', 'POST'] as const) {
      const res = await h.inject({ method, url: `/v2/${endpointId}/status/${jobId}`, headers: bearer(readOnly) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: jobId, status: 'IN_QUEUE' });
    }
    expect(await state()).toEqual(before);
  });

  it('refuses GET /openai/v1/models, which submits a job, and submits none', async () => {
    const jobs = (await h.engine().recent(endpointId, 100)).length;
    const before = await state();
    expectReadOnlyRefusal(
      await h.inject({ method: 'GET', url: `/v2/${endpointId}/openai/v1/models`, headers: bearer(readOnly) }),
    );
    expect(await state()).toEqual(before);
    expect(await h.engine().recent(endpointId, 100)).toHaveLength(jobs);
  });

  it('refuses /stream, which hands each chunk out once, on GET and POST', async () => {
    const jobId = await queuedJob();
    for (const method of ['GET', 'POST'] as const) {
      expectReadOnlyRefusal(
        await h.inject({ method, url: `/v2/${endpointId}/stream/${jobId}?wait=0`, headers: bearer(readOnly) }),
      );
    }
  });
});
