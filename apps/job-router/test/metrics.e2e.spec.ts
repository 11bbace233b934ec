import { pollUntil } from '@runplane/testing';
import { bearer, type JobRouterHarness, raw, startJobRouter } from './harness';

/** The value of one sample of the exposition, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = match[2]!.split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

describe('job-router domain metrics', () => {
  let h: JobRouterHarness;
  let owner: string;
  let endpointId: string;

  beforeAll(async () => {
    h = await startJobRouter('metrics', { JOB_RATE_LIMITS: 'cancel=1/0' });
    const { accountId, secret } = await h.accountWithKey();
    owner = secret;
    endpointId = await h.endpoint(accountId, 5_000);
  });
  afterAll(() => h.close());

  const metrics = async (): Promise<string> => (await h.inject({ method: 'GET', url: '/metrics' })).body;
  const submit = async (): Promise<string> => {
    const res = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: bearer(owner),
      payload: { input: { n: 1 } },
    });
    expect(res.statusCode).toBe(200);
    return (res.json() as { id: string }).id;
  };
  const worker = async (method: 'GET' | 'POST', path: string, payload?: object) => {
    const res = await h.inject({
      method,
      url: `/v2/${endpointId}/${path}`,
      headers: raw(owner),
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode).toBe(200);
    return res;
  };
  const take = async (): Promise<string> =>
    ((await worker('GET', 'job-take/w-1?job_in_progress=0')).json() as { id: string }).id;

  it('counts jobs submitted and finished by status, their delay and execution time, and refused requests', async () => {
    const jobs = [await submit(), await submit(), await submit(), await submit()];
    h.clock.advance(2_000);
    const [ok, failing, slow] = [await take(), await take(), await take()];
    expect([ok, failing, slow]).toEqual(jobs.slice(0, 3));
    h.clock.advance(1_000);
    await worker('POST', `job-done/w-1/${ok}?isStream=false`, { output: { ok: true } });
    await worker('POST', `job-done/w-1/${failing}?isStream=false`, { error: 'boom' });
    h.clock.advance(5_000);
    await h.engine().sweep();
    const cancel = () =>
      h.inject({ method: 'POST', url: `/v2/${endpointId}/cancel/${jobs[3]}`, headers: bearer(owner) });
    expect((await cancel()).statusCode).toBe(200);
    expect((await cancel()).statusCode).toBe(429);

    const counted = async (): Promise<string | false> => {
      const body = await metrics();
      return sample(body, 'runplane_jobs_finished_total', { endpoint: endpointId, status: 'CANCELLED' }) === 1 && body;
    };
    const text = await pollUntil(counted, { description: 'the four final statuses counted' });
    const ep = { endpoint: endpointId };
    expect(sample(text, 'runplane_jobs_submitted_total', ep)).toBe(4);
    for (const status of ['COMPLETED', 'FAILED', 'TIMED_OUT', 'CANCELLED'])
      expect(sample(text, 'runplane_jobs_finished_total', { ...ep, status })).toBe(1);
    // Three jobs were taken 2 s after they were queued; two ran 1 s, the one that timed out 6 s (to the sweep).
    expect(sample(text, 'runplane_job_delay_seconds_count', ep)).toBe(3);
    expect(sample(text, 'runplane_job_delay_seconds_sum', ep)).toBe(6);
    expect(sample(text, 'runplane_job_delay_seconds_bucket', { ...ep, le: '1' })).toBe(0);
    expect(sample(text, 'runplane_job_delay_seconds_bucket', { ...ep, le: '2.5' })).toBe(3);
    expect(sample(text, 'runplane_job_execution_seconds_count', ep)).toBe(3);
    expect(sample(text, 'runplane_job_execution_seconds_sum', ep)).toBe(8);
    expect(sample(text, 'runplane_job_rate_limited_total', { ...ep, operation: 'cancel' })).toBe(1);
  });

  it('reports queue depth and the age of the oldest queued job, on the engine clock', async () => {
    await submit();
    h.clock.advance(3_000);
    await submit();
    h.clock.advance(1_500);
    const text = await metrics();
    expect(sample(text, 'runplane_queue_depth', { endpoint: endpointId })).toBe(2);
    expect(sample(text, 'runplane_queue_oldest_job_age_seconds', { endpoint: endpointId })).toBe(4.5);
    expect(sample(text, 'runplane_queue_depth', { endpoint: 'other' })).toBe(0);

    await take();
    await take();
    const drained = await metrics();
    expect(sample(drained, 'runplane_queue_depth', { endpoint: endpointId })).toBe(0);
    expect(sample(drained, 'runplane_queue_oldest_job_age_seconds', { endpoint: endpointId })).toBe(0);
  });

  it('counts a job submitted again under its Idempotency-Key, or retried, as submitted once', async () => {
    const submitted = async () =>
      sample(await metrics(), 'runplane_jobs_submitted_total', { endpoint: endpointId }) ?? 0;
    const before = await submitted();
    const again = () =>
      h.inject({
        method: 'POST',
        url: `/v2/${endpointId}/run`,
        headers: { ...bearer(owner), 'idempotency-key': 'metrics-once' },
        payload: { input: { n: 2 } },
      });
    const first = (await again()).json() as { id: string };
    expect(((await again()).json() as { id: string }).id).toBe(first.id);
    expect(await take()).toBe(first.id);
    await worker('POST', `job-done/w-1/${first.id}?isStream=false`, { error: 'boom' });
    const retried = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/retry/${first.id}`,
      headers: bearer(owner),
    });
    expect(retried.statusCode).toBe(200);
    expect(await submitted()).toBe(before + 1);
  });
});
