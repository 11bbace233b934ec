import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

interface Ref {
  id: string;
  status: string;
}

describe('job-router client API', () => {
  let h: JobRouterHarness;
  let key: Record<string, string>;
  let endpointId: string;
  let workerKey: Record<string, string>;

  beforeAll(async () => {
    h = await startJobRouter('jr-client');
    const account = await h.accountWithKey();
    key = bearer(account.secret);
    endpointId = await h.endpoint(account.accountId, 120_000);
    workerKey = raw(await h.workerToken(endpointId, 'w1'));
  });
  afterAll(() => h.close());

  const call = (method: 'GET' | 'POST', path: string, payload?: unknown) =>
    h.inject({
      method,
      url: `/v2/${endpointId}/${path}`,
      headers: key,
      ...(payload === undefined ? {} : { payload: payload as string }),
    });
  const submit = async (payload: unknown = { input: { n: 1 } }): Promise<Ref> => {
    const res = await call('POST', 'run', payload);
    expect(res.statusCode).toBe(200);
    return res.json() as Ref;
  };
  const take = async (): Promise<Record<string, unknown>> => {
    const res = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/job-take/w1?job_in_progress=0`,
      headers: workerKey,
    });
    expect(res.statusCode).toBe(200);
    return res.json() as Record<string, unknown>;
  };
  const done = (jobId: string, body: unknown) =>
    h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-done/w1/${jobId}?isStream=false`,
      headers: { ...workerKey, 'content-type': 'application/x-www-form-urlencoded' },
      payload: JSON.stringify(body),
    });

  it('runs a job to COMPLETED and serves its record on GET and POST /status with 200', async () => {
    const webhook = 'https://example.com/hook';
    const ref = await submit({
      input: { n: 1 },
      s3Config: { bucketName: 'b' },
      custom: 7,
      webhook,
      policy: { ttl: 60_000 },
    });
    expect(ref).toEqual({ id: expect.stringMatching(/-u1$/), status: 'IN_QUEUE' });
    // The worker gets the job object as RunPod hands it to handlers: id, input, webhook and every other key but policy.
    const job = await take();
    expect(job).toEqual({ id: ref.id, input: { n: 1 }, s3Config: { bucketName: 'b' }, custom: 7, webhook });
    expect((await done(ref.id, { output: { ok: true } })).statusCode).toBe(200);
    for (const method of ['GET', 'POST'] as const) {
      const status = await call(method, `status/${ref.id}`);
      expect(status.statusCode).toBe(200);
      expect(status.json()).toMatchObject({
        id: ref.id,
        status: 'COMPLETED',
        output: { ok: true },
        workerId: 'w1',
        retries: 0,
      });
    }
    const sync = await call('GET', `status-sync/${ref.id}?wait=1000`);
    expect(sync.statusCode).toBe(200);
    expect(sync.json()).toMatchObject({ status: 'COMPLETED' });
    expect((await call('POST', `status-sync/${ref.id}?wait=1000`)).statusCode).toBe(200);
  });

  it('answers /runsync with {id, status} when the wait elapses and the record when the job finishes', async () => {
    const pending = await call('POST', 'runsync?wait=1000', { input: { n: 2 } });
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toEqual({ id: expect.stringMatching(/^sync-/), status: 'IN_QUEUE' });
    const syncJob = (pending.json() as Ref).id;
    const runsync = call('POST', 'runsync?wait=5000', { input: { n: 3 } });
    const taken = [await take(), await take()];
    for (const job of taken) await done(String(job.id), { output: job.input });
    const finished = await runsync;
    expect(finished.statusCode).toBe(200);
    expect(finished.json()).toMatchObject({ status: 'COMPLETED', output: { n: 3 } });
    expect((await call('GET', `status/${syncJob}`)).json()).toMatchObject({ status: 'COMPLETED', output: { n: 2 } });
  });

  it('streams chunks once each with stream always an array, on GET and POST', async () => {
    const ref = await submit();
    await take();
    const chunk = (output: unknown) =>
      h.inject({
        method: 'POST',
        url: `/v2/${endpointId}/job-stream/w1/${ref.id}`,
        headers: { ...workerKey, 'content-type': 'text/plain' },
        payload: JSON.stringify({ output }),
      });
    expect((await chunk('a')).statusCode).toBe(200);
    expect((await chunk('b')).statusCode).toBe(200);
    const first = await call('GET', `stream/${ref.id}?wait=1000`);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ status: 'IN_PROGRESS', stream: [{ output: 'a' }, { output: 'b' }] });
    const empty = await call('POST', `stream/${ref.id}?wait=1000`);
    expect(empty.json()).toEqual({ status: 'IN_PROGRESS', stream: [] });
    await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-done/w1/${ref.id}?isStream=true`,
      headers: workerKey,
      payload: { output: [] },
    });
    expect((await call('GET', `stream/${ref.id}`)).json()).toEqual({ status: 'COMPLETED', stream: [] });
  });

  it('cancels, retries only failed jobs, purges the queue and reports health and requests', async () => {
    const queued = await submit();
    const cancelled = await call('POST', `cancel/${queued.id}`);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toEqual({ id: queued.id, status: 'CANCELLED' });
    const failing = await submit();
    await take();
    await done(failing.id, { error: 'boom' });
    expect((await call('GET', `status/${failing.id}`)).json()).toMatchObject({ status: 'FAILED', error: 'boom' });
    const retried = await call('POST', `retry/${failing.id}`);
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toEqual({ id: failing.id, status: 'IN_QUEUE' });
    const refused = await call('POST', `retry/${queued.id}`);
    expect(refused.statusCode).toBe(400);
    await submit();
    const purged = await call('POST', 'purge-queue');
    expect(purged.statusCode).toBe(200);
    expect(purged.json()).toEqual({ removed: 2, status: 'completed' });
    const health = await call('GET', 'health');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({
      jobs: {
        completed: expect.any(Number),
        failed: expect.any(Number),
        inProgress: 0,
        inQueue: 0,
        retried: expect.any(Number),
      },
      workers: { idle: expect.any(Number), running: expect.any(Number), initializing: 0, throttled: 0, unhealthy: 0 },
    });
    const requests = await call('GET', 'requests');
    expect(requests.statusCode).toBe(200);
    expect((requests.json() as Ref[]).map((job) => job.id)).toContain(failing.id);
  });

  it('answers POSTs whose application/json body is empty, as runpod-python sends cancel and purge_queue', async () => {
    const headers = { ...key, 'content-type': 'application/json' };
    const bodiless = (path: string) =>
      h.inject({ method: 'POST', url: `/v2/${endpointId}/${path}`, headers, payload: '' });
    const ref = await submit();
    const status = await bodiless(`status/${ref.id}`);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({ id: ref.id, status: 'IN_QUEUE' });
    const cancelled = await bodiless(`cancel/${ref.id}`);
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toEqual({ id: ref.id, status: 'CANCELLED' });
    expect((await bodiless(`stream/${ref.id}`)).json()).toEqual({ status: 'CANCELLED', stream: [] });
    await submit();
    const purged = await bodiless('purge-queue');
    expect(purged.statusCode).toBe(200);
    expect(purged.json()).toEqual({ removed: 1, status: 'completed' });
    // A route that needs a body says which part is missing.
    const run = await bodiless('run');
    expect(run.statusCode).toBe(400);
    expect(run.json()).toMatchObject({ error: expect.stringContaining('input') });
  });

  it('sets a ttl through /status?ttl= and answers unknown jobs with 404', async () => {
    const ref = await submit();
    expect((await call('GET', `status/${ref.id}?ttl=60000`)).json()).toMatchObject({ id: ref.id });
    const tooShort = await call('GET', `status/${ref.id}?ttl=5`);
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.json()).toMatchObject({ error: 'ttl: must be >= 10000' });
    expect((await call('GET', `status-sync/${ref.id}?wait=soon`)).json()).toMatchObject({
      error: 'wait: expected a number',
    });
    expect((await call('GET', `status-sync/${ref.id}?wait=900000`)).json()).toMatchObject({
      error: 'wait: must be <= 300000',
    });
    const unknown = await call('GET', 'status/no-such-job');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toHaveProperty('error');
  });

  it('returns the first job for a repeated Idempotency-Key', async () => {
    const headers = { ...key, 'idempotency-key': 'order-42' };
    const first = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers,
      payload: { input: { a: 1 } },
    });
    const second = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers,
      payload: { input: { a: 2 } },
    });
    expect(second.statusCode).toBe(200);
    expect((second.json() as Ref).id).toBe((first.json() as Ref).id);
  });
});
