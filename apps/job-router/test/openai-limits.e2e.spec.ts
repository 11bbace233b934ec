// The OpenAI-compatible route counts against its own per-endpoint limit (RunPod: /openai/* 2000 per 10 s, 400
// concurrent); here lowered by configuration so the test reaches it.
import { bearer, type JobRouterHarness, startJobRouter } from './harness';

describe('job-router OpenAI route limits', () => {
  let h: JobRouterHarness;

  beforeAll(async () => {
    h = await startJobRouter('jr-openai-limits', { JOB_RATE_LIMITS: 'openai=2/0', JOB_RATE_PER_WORKER: '0' });
  });
  afterAll(() => h.close());

  it('answers 429 with retry-after once the openai operation is over its rate, and leaves /run alone', async () => {
    const { accountId, secret } = await h.accountWithKey();
    const endpointId = await h.endpoint(accountId);
    // Refused bodies still count: the limit applies before the request is looked at.
    const post = () =>
      h.inject({
        method: 'POST',
        url: `/v2/${endpointId}/openai/v1/chat/completions`,
        headers: bearer(secret),
        payload: [],
      });
    expect((await post()).statusCode).toBe(400);
    expect((await post()).statusCode).toBe(400);
    const limited = await post();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
    expect(limited.json()).toMatchObject({
      error: expect.stringMatching(/Rate limit exceeded for openai/),
      code: 'RATE_LIMITED',
    });
    const models = await h.inject({
      method: 'GET',
      url: `/v2/${endpointId}/openai/v1/models`,
      headers: bearer(secret),
    });
    expect(models.statusCode).toBe(429);
    const run = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: bearer(secret),
      payload: { input: {} },
    });
    expect(run.statusCode).toBe(200);
  });
});
