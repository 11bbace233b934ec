import { bearer, type JobRouterHarness, startJobRouter } from './harness';
import { keysUnder } from './redis-state';

/**
 * An endpoint's rate and concurrency budget is its owner's: requests another account makes with the endpoint's id,
 * and requests for endpoints that do not exist, answer 404 before anything is counted.
 */
describe('job-router limits count only the endpoint owner’s requests', () => {
  let h: JobRouterHarness;
  let owner: { accountId: string; secret: string };
  let intruder: { accountId: string; secret: string };

  beforeAll(async () => {
    h = await startJobRouter('jr-tenant-limits', {
      JOB_RATE_LIMITS: 'purge-queue=2/0,cancel=100/1',
      JOB_RATE_PER_WORKER: '0',
    });
    owner = await h.accountWithKey();
    intruder = await h.accountWithKey();
  });
  afterAll(() => h.close());

  const purge = (endpointId: string, secret: string) =>
    h.inject({ method: 'POST', url: `/v2/${endpointId}/purge-queue`, headers: bearer(secret) });

  const redisKeys = () => keysUnder(h.redis, h.config.REDIS_PREFIX);

  /** One request of every limited operation on `endpointId`, Nest-served and plain routes alike. */
  function everyLimitedOperation(endpointId: string, secret: string) {
    const headers = bearer(secret);
    const input = { input: { n: 1 } };
    return [
      h.inject({ method: 'POST', url: `/v2/${endpointId}/run`, headers, payload: input }),
      h.inject({ method: 'POST', url: `/v2/${endpointId}/runsync?wait=1000`, headers, payload: input }),
      h.inject({ method: 'GET', url: `/v2/${endpointId}/status/job-1`, headers }),
      h.inject({ method: 'POST', url: `/v2/${endpointId}/status/job-1?ttl=10000`, headers }),
      h.inject({ method: 'GET', url: `/v2/${endpointId}/status-sync/job-1?wait=1000`, headers }),
      h.inject({ method: 'GET', url: `/v2/${endpointId}/stream/job-1?wait=1000`, headers }),
      h.inject({ method: 'POST', url: `/v2/${endpointId}/cancel/job-1`, headers }),
      h.inject({ method: 'POST', url: `/v2/${endpointId}/retry/job-1`, headers }),
      h.inject({ method: 'POST', url: `/v2/${endpointId}/purge-queue`, headers }),
      h.inject({ method: 'GET', url: `/v2/${endpointId}/requests`, headers }),
      h.inject({ method: 'GET', url: `/v2/${endpointId}/openai/v1/models`, headers }),
      h.inject({
        method: 'POST',
        url: `/v2/${endpointId}/openai/v1/chat/completions`,
        headers,
        payload: { model: 'm', messages: [] },
      }),
    ];
  }

  it('answers another account’s purge-queue calls with 404 and leaves the owner its whole budget', async () => {
    const endpointId = await h.endpoint(owner.accountId);
    const foreign = [];
    for (let i = 0; i < 4; i += 1) foreign.push((await purge(endpointId, intruder.secret)).statusCode);
    expect(foreign).toEqual([404, 404, 404, 404]);
    // purge-queue allows 2 requests per window: both are still the owner's, and only a third is refused.
    expect((await purge(endpointId, owner.secret)).statusCode).toBe(200);
    expect((await purge(endpointId, owner.secret)).statusCode).toBe(200);
    const third = await purge(endpointId, owner.secret);
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({
      error: expect.stringContaining('Rate limit exceeded for purge-queue'),
      code: 'RATE_LIMITED',
    });
  });

  it('creates no Redis key for requests on another account’s or a made-up endpoint', async () => {
    const endpointId = await h.endpoint(owner.accountId);
    const before = await redisKeys();
    const answers = await Promise.all([
      ...everyLimitedOperation(endpointId, intruder.secret),
      ...everyLimitedOperation('no-such-endpoint', intruder.secret),
      ...everyLimitedOperation('no-such-endpoint', owner.secret),
    ]);
    for (const answer of answers) {
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ error: 'Endpoint not found', code: 'NOT_FOUND' });
    }
    expect(await redisKeys()).toEqual(before);
    // The owner's own requests do count (the same scan sees the limiter's keys), so the scan above is no blind spot.
    expect((await purge(endpointId, owner.secret)).statusCode).toBe(200);
    expect((await redisKeys()).filter((key) => key.includes(endpointId)).length).toBeGreaterThan(0);
  });
});
