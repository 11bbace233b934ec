import { JobRateLimiter } from '../src/limits/job-rate-limiter';
import { normalizePrefix } from '@runplane/queue';
import { pollUntil } from '@runplane/testing';
import { bearer, type JobRouterHarness, startJobRouter } from './harness';

const KiB = 1024;

describe('job-router limits', () => {
  let h: JobRouterHarness;
  let secret: string;
  let endpointId: string;

  beforeAll(async () => {
    h = await startJobRouter('jr-limits', {
      JOB_RATE_LIMITS: 'run=3/0,runsync=100/1,cancel=100/1,purge-queue=2/0',
      JOB_RATE_PER_WORKER: '0',
      JOB_RUN_MAX_BYTES: String(16 * KiB),
      JOB_RUNSYNC_MAX_BYTES: String(32 * KiB),
      JOB_OTHER_MAX_BYTES: String(4 * KiB),
      BODY_LIMIT_BYTES: String(64 * KiB),
    });
    const account = await h.accountWithKey();
    secret = account.secret;
    endpointId = await h.endpoint(account.accountId);
  });
  afterAll(() => h.close());

  const post = (path: string, payload: unknown, headers: Record<string, string> = {}) =>
    h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/${path}`,
      headers: { ...bearer(secret), ...headers },
      payload: payload as string,
    });

  it('answers 429 with Retry-After and {"error"} once an operation is over its rate, per endpoint', async () => {
    for (let i = 0; i < 3; i += 1) expect((await post('run', { input: { i } })).statusCode).toBe(200);
    const limited = await post('run', { input: {} });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toMatchObject({
      error: expect.stringContaining('Rate limit exceeded for run'),
      code: 'RATE_LIMITED',
    });
    // Refused by the script that records the job: nothing recorded, and the refusal counted under its operation.
    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(secret) });
    expect(health.json()).toMatchObject({ jobs: { inQueue: 3 } });
    const metrics = (await h.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toContain(
      `runplane_job_rate_limited_total{endpoint="${endpointId}",operation="run",service="job-router"} 1\n`,
    );
    // Other operations and other endpoints keep their own budgets.
    expect((await post('purge-queue', {})).statusCode).toBe(200);
    const { accountId, secret: otherSecret } = await h.accountWithKey();
    const otherEndpoint = await h.endpoint(accountId);
    const elsewhere = await h.inject({
      method: 'POST',
      url: `/v2/${otherEndpoint}/run`,
      headers: bearer(otherSecret),
      payload: { input: {} },
    });
    expect(elsewhere.statusCode).toBe(200);
  });

  it('limits purge-queue to its rate', async () => {
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push((await post('purge-queue', {})).statusCode);
    expect(answers).toContain(429);
  });

  it('answers over-concurrency with 429 and frees the slot when the request ends', async () => {
    const { accountId, secret: key } = await h.accountWithKey();
    const endpoint = await h.endpoint(accountId);
    const run = await h.inject({
      method: 'POST',
      url: `/v2/${endpoint}/run`,
      headers: bearer(key),
      payload: { input: {} },
    });
    const id = (run.json() as { id: string }).id;
    const cancel = () => h.inject({ method: 'POST', url: `/v2/${endpoint}/cancel/${id}`, headers: bearer(key) });
    // With a concurrency of 1, sequential requests never collide ...
    expect((await cancel()).statusCode).toBe(200);
    expect((await cancel()).statusCode).toBe(200);
    // ... and a held slot (taken here directly in Redis's counter) makes the next request a 429.
    const release = await h.app.get(JobRateLimiter).acquire(endpoint, 'cancel');
    const busy = await cancel();
    expect(busy.statusCode).toBe(429);
    expect(busy.headers['retry-after']).toBe('1');
    await release();
    expect((await cancel()).statusCode).toBe(200);
  });

  /** An endpoint of a new account (its own budgets): POSTs to its job API with its key, and its queued jobs. */
  async function freshEndpoint() {
    const { accountId, secret: key } = await h.accountWithKey();
    const endpoint = await h.endpoint(accountId);
    return {
      endpoint,
      post: (path: string, payload: unknown = { input: {} }, headers: Record<string, string> = {}) =>
        h.inject({
          method: 'POST',
          url: `/v2/${endpoint}/${path}`,
          headers: { ...bearer(key), ...headers },
          payload: payload as string,
        }),
      inQueue: async () =>
        (await h.inject({ method: 'GET', url: `/v2/${endpoint}/health`, headers: bearer(key) })).json().jobs.inQueue,
    };
  }

  it('counts a /run with an Idempotency-Key before it, its repeats too', async () => {
    const { post, inQueue } = await freshEndpoint();
    const run = () => post('run', { input: {} }, { 'idempotency-key': 'order-1' });
    const answers = [await run(), await run(), await run()];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.json().id)).size).toBe(1);
    expect((await run()).statusCode).toBe(429);
    expect(await inQueue()).toBe(1);
  });

  it('holds a /runsync slot while the caller waits, and frees it when the answer is ready', async () => {
    const { endpoint, post, inQueue } = await freshEndpoint();
    const runsync = () => post('runsync?wait=1000');
    const waiting = runsync();
    // No worker takes it: the caller waits its second, holding the one slot.
    await pollUntil(
      async () =>
        (await h.redis.get(`${normalizePrefix(h.config.REDIS_PREFIX)}limits:busy:${endpoint}:runsync`)) === '1',
      {
        description: 'the first /runsync to hold its slot',
      },
    );
    const busy = await runsync();
    expect(busy.statusCode).toBe(429);
    expect(busy.json().error).toBe('Too many concurrent runsync requests for this endpoint (limit 1)');
    expect((await waiting).json()).toMatchObject({ status: 'IN_QUEUE' });
    const next = await runsync();
    expect(next.statusCode).toBe(200);
    expect(await inQueue()).toBe(2);
  });

  it('answers bodies over the /run and /runsync limits with 400, not 413', async () => {
    const big = { input: { blob: 'x'.repeat(20 * KiB) } };
    const run = await post('run', big);
    expect(run.statusCode).toBe(400);
    expect(run.json().error).toBe(`body: too large, the limit of /run is ${16 * KiB} bytes`);
    const runsync = await post('runsync?wait=1000', { input: { blob: 'x'.repeat(40 * KiB) } });
    expect(runsync.statusCode).toBe(400);
    expect(runsync.json().error).toMatch(/limit of \/runsync/);
    const chunked = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/cancel/x`,
      headers: { ...bearer(secret), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: JSON.stringify({ pad: 'y'.repeat(8 * KiB) }),
    });
    expect(chunked.statusCode).toBe(400);
  });

  it('answers bad input with 400 naming the field', async () => {
    // A fresh endpoint: the /run budget of the first one is spent.
    const { post } = await freshEndpoint();
    const noInput = await post('run', { webhook: 'https://example.com' });
    expect(noInput.statusCode).toBe(400);
    expect(noInput.json().error).toMatch(/^input: /);
    const badHook = await post('run', { input: {}, webhook: 'ftp://x' });
    expect(badHook.json().error).toMatch(/^webhook: must be an http\(s\) URL/);
    const badPolicy = await post('runsync', { input: {}, policy: { executionTimeout: 10 } });
    expect(badPolicy.json().error).toMatch(/^policy.executionTimeout: /);
    const badTtl = await post('runsync', { input: {}, policy: { ttl: 1000 } });
    expect(badTtl.json().error).toMatch(/^policy.ttl: /);
    const badWait = await post('runsync?wait=10', { input: {} });
    expect(badWait.statusCode).toBe(400);
    expect(badWait.json().error).toMatch(/^wait: /);
    const malformed = await post('run', '{"input":', { 'content-type': 'application/json' });
    expect(malformed.statusCode).toBe(400);
  });
});
