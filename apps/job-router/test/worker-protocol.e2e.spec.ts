import { getFreePort, pollUntil } from '@runplane/testing';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

describe('job-router worker protocol', () => {
  let h: JobRouterHarness;
  let client: Record<string, string>;
  let endpointId: string;
  let worker: Record<string, string>;

  beforeAll(async () => {
    h = await startJobRouter('jr-worker', { JOB_TAKE_WAIT_MS: '300' });
    const account = await h.accountWithKey();
    client = bearer(account.secret);
    endpointId = await h.endpoint(account.accountId);
    worker = raw(await h.workerToken(endpointId, 'w9'));
  });
  afterAll(() => h.close());

  const submit = async (input: Record<string, unknown> = {}): Promise<string> => {
    const res = await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers: client, payload: { input } });
    return (res.json() as { id: string }).id;
  };
  const get = (path: string) => h.inject({ method: 'GET', url: `/v2/${endpointId}/${path}`, headers: worker });

  it('answers an empty job-take and job-take-batch with 204 and no body after the hold', async () => {
    const take = await get('job-take/w9?gpu=NVIDIA+A100&job_in_progress=0');
    expect(take.statusCode).toBe(204);
    expect(take.body).toBe('');
    const batch = await get('job-take-batch/w9?batch_size=4&job_in_progress=1');
    expect(batch.statusCode).toBe(204);
  });

  it('wakes a parked job-take when a job arrives, as application/json', async () => {
    const parked = h.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/w9?job_in_progress=0`, headers: worker });
    const id = await submit({ hello: 'world' });
    const res = await parked;
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ id, input: { hello: 'world' } });
    await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-done/w9/${id}?isStream=false`,
      headers: worker,
      payload: { output: 1 },
    });
  });

  it('keeps NUL characters in inputs, stream chunks and results (jobs live in Redis), and refuses them only where Postgres would hold them', async () => {
    const id = await submit({ text: 'a\u0000b' });
    const taken = await get('job-take/w9');
    expect(taken.json()).toMatchObject({ id, input: { text: 'a\u0000b' } });
    const post = (path: string, body: object) =>
      h.inject({
        method: 'POST',
        url: `/v2/${endpointId}/${path}`,
        headers: { ...worker, 'content-type': 'application/x-www-form-urlencoded' },
        payload: JSON.stringify(body),
      });
    expect((await post(`job-stream/w9/${id}`, { output: 'chunk\u0000' })).statusCode).toBe(200);
    expect((await post(`job-done/w9/${id}?isStream=false`, { output: { bytes: '\u0000\u0001' } })).statusCode).toBe(
      200,
    );
    const status = await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${id}`, headers: client });
    expect(status.json()).toMatchObject({ status: 'COMPLETED', output: { bytes: '\u0000\u0001' } });
    const stream = await h.inject({ method: 'GET', url: `/v2/${endpointId}/stream/${id}`, headers: client });
    expect(stream.json()).toMatchObject({ stream: [{ output: 'chunk\u0000' }] });

    // A webhook URL is kept in Postgres with its deliveries, and a path id or query value may be looked up there.
    const hooked = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: client,
      payload: { input: {}, webhook: 'https://example.com/\u0000' },
    });
    expect(hooked.statusCode).toBe(400);
    expect(hooked.json()).toMatchObject({ error: expect.stringContaining('webhook: must not contain NUL characters') });
    expect((await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/a%00b`, headers: client })).statusCode).toBe(
      404,
    );
    expect(
      (await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${id}?ttl=%00`, headers: client })).statusCode,
    ).toBe(400);
  });

  it('hands out a batch as an array', async () => {
    const ids = [await submit({ i: 1 }), await submit({ i: 2 }), await submit({ i: 3 })];
    const res = await get('job-take-batch/w9?batch_size=2&job_in_progress=0');
    expect(res.statusCode).toBe(200);
    const batch = res.json() as { id: string }[];
    expect(batch).toHaveLength(2);
    const rest = (await get('job-take-batch/w9?batch_size=5')).json() as { id: string }[];
    expect([...batch, ...rest].map((job) => job.id).sort()).toEqual([...ids].sort());
  });

  it('parses job-done JSON whatever the Content-Type, accepts it twice, and ignores progress after the end', async () => {
    const id = await submit();
    await get('job-take/w9');
    const post = (body: string, contentType?: string) =>
      h.inject({
        method: 'POST',
        url: `/v2/${endpointId}/job-done/w9/${id}?gpu=x&isStream=false`,
        headers: { ...worker, ...(contentType ? { 'content-type': contentType } : {}), charset: 'utf-8' },
        payload: body,
      });
    const progress = await post(
      JSON.stringify({ status: 'IN_PROGRESS', output: 'half' }),
      'application/x-www-form-urlencoded',
    );
    expect(progress.statusCode).toBe(200);
    expect((await statusOf(id)).output).toBe('half');
    const final = await post(JSON.stringify({ output: { done: true } }), 'application/x-www-form-urlencoded');
    expect(final.statusCode).toBe(200);
    expect((await post(JSON.stringify({ output: { done: true } }))).statusCode).toBe(200);
    expect((await post(JSON.stringify({ status: 'IN_PROGRESS', output: 'late' }), 'text/plain')).statusCode).toBe(200);
    expect(await statusOf(id)).toMatchObject({ status: 'COMPLETED', output: { done: true } });
    expect((await post('{not json', 'application/x-www-form-urlencoded')).statusCode).toBe(400);
  });

  it('takes heartbeats with job ids and answers job-stop with jobsToStop after a cancel, else 204', async () => {
    const id = await submit();
    await get('job-take/w9');
    expect((await get(`ping/w9?job_id=${id}&runpod_version=1.7.9`)).statusCode).toBe(200);
    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: client });
    expect(health.json()).toMatchObject({ workers: { running: 1, idle: 0 } });
    expect((await get('job-stop/w9')).statusCode).toBe(204);
    await h.inject({ method: 'POST', url: `/v2/${endpointId}/cancel/${id}`, headers: client });
    const stop = await get('job-stop/w9');
    expect(stop.statusCode).toBe(200);
    expect(stop.json()).toEqual({ jobsToStop: [id] });
  });

  it('takes back a job its worker stopped reporting, except from runpod-python 1.7.1, whose pings never report jobs', async () => {
    const workerOf = async (name: string) => raw(await h.workerToken(endpointId, name));
    const ping = async (name: string, query: string) =>
      (await h.inject({ method: 'GET', url: `/v2/${endpointId}/ping/${name}?${query}`, headers: await workerOf(name) }))
        .statusCode;
    const takeAs = async (name: string) =>
      (
        await h.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/${name}`, headers: await workerOf(name) })
      ).json() as { id: string };
    const old = await submit({ sdk: '1.7.1' });
    expect((await takeAs('w-171')).id).toBe(old);
    const current = await submit({ sdk: '1.8.0' });
    expect((await takeAs('w-180')).id).toBe(current);
    // Past two heartbeat intervals, a job its worker does not report never reached it, or was lost there.
    h.clock.advance(25_000);
    expect(await ping('w-171', 'runpod_version=1.7.1')).toBe(200);
    expect(await ping('w-180', 'runpod_version=1.8.0')).toBe(200);
    expect(await statusOf(old)).toMatchObject({ status: 'IN_PROGRESS', workerId: 'w-171', retries: 0 });
    expect(await statusOf(current)).toMatchObject({ status: 'IN_QUEUE', retries: 1 });
  });

  it('rejects bad worker queries with 400', async () => {
    expect((await get('job-take-batch/w9?batch_size=0')).statusCode).toBe(400);
    expect((await get('job-take/w9?job_in_progress=maybe')).statusCode).toBe(400);
  });

  async function statusOf(id: string): Promise<Record<string, unknown>> {
    const res = await h.inject({ method: 'GET', url: `/v2/${endpointId}/status/${id}`, headers: client });
    return res.json() as Record<string, unknown>;
  }
});

describe('job-router worker protocol: hang-ups', () => {
  let h: JobRouterHarness;
  let client: Record<string, string>;
  let endpointId: string;
  let worker: Record<string, string>;

  beforeAll(async () => {
    // A hold far longer than the test's patience: only the hang-up can end the parked take in time.
    h = await startJobRouter('jr-hangup', { JOB_TAKE_WAIT_MS: '60000' });
    const account = await h.accountWithKey();
    client = bearer(account.secret);
    endpointId = await h.endpoint(account.accountId);
    worker = raw(await h.workerToken(endpointId, 'w9'));
  });
  afterAll(() => h.close());

  const submit = async (input: Record<string, unknown>): Promise<string> => {
    const res = await h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers: client, payload: { input } });
    return (res.json() as { id: string }).id;
  };

  it('gives up a parked job-take when the worker hangs up, so the next job goes to a worker still listening', async () => {
    const port = await getFreePort();
    await h.app.listen(port, '127.0.0.1');
    const url = (worker: string) => `http://127.0.0.1:${port}/v2/${endpointId}/job-take/${worker}`;
    const hangUp = new AbortController();
    const gone = fetch(url('w9'), { headers: worker, signal: hangUp.signal }).catch((error: unknown) => error);
    await pollUntil(() => h.engine().parked() > 0);
    hangUp.abort();
    expect(await gone).toMatchObject({ name: 'AbortError' });
    await pollUntil(() => h.engine().parked() === 0, { timeoutMs: 5_000 });
    const id = await submit({ after: 'hang-up' });
    const res = await h.inject({ method: 'GET', url: `/v2/${endpointId}/job-take/w9`, headers: worker });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id });
  });
});
