import { MAX_JSON_DEPTH } from '@runplane/http';
import { answerOf, nestedJson, sendRaw, trickleUntilAnswered } from '@runplane/testing';
import { request } from 'undici';
import { bearer, type JobRouterHarness, startJobRouter } from './harness';

const json = { 'content-type': 'application/json' };

describe('job-router: request edges', () => {
  let h: JobRouterHarness;
  let secret: string;
  let endpointId: string;
  let port: number;

  beforeAll(async () => {
    h = await startJobRouter('jr-edges', { BODY_TIMEOUT_MS: '500' });
    const account = await h.accountWithKey();
    secret = account.secret;
    endpointId = await h.endpoint(account.accountId);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const address = h.app.getHttpServer().address();
    port = typeof address === 'object' && address ? address.port : 0;
  });
  afterAll(() => h.close());

  const tooDeep = `body: nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;

  it('refuses a /run input nested 5,000 deep with 400 in the job shape, and stores nothing', async () => {
    const res = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: { ...bearer(secret), ...json },
      payload: `{"input":{"a":${nestedJson(5_000)}}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: tooDeep, code: 'VALIDATION_FAILED', requestId: res.headers['x-request-id'] });
    const health = await h.inject({ method: 'GET', url: `/v2/${endpointId}/health`, headers: bearer(secret) });
    expect(health.json()).toMatchObject({ jobs: { inQueue: 0 } });
    const shallow = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/run`,
      headers: { ...bearer(secret), ...json },
      payload: `{"input":{"a":${nestedJson(MAX_JSON_DEPTH - 2)}}}`,
    });
    expect(shallow.statusCode).toBe(200);
  });

  it('refuses a worker result nested 5,000 deep with 400, whatever its content type', async () => {
    const token = await h.workerToken(endpointId, 'w-deep');
    const res = await h.inject({
      method: 'POST',
      url: `/v2/${endpointId}/job-done/w-deep/some-job`,
      headers: { ...bearer(token), 'content-type': 'application/x-www-form-urlencoded' },
      payload: `{"output":${nestedJson(5_000)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: tooDeep, code: 'VALIDATION_FAILED', requestId: res.headers['x-request-id'] });
  });

  it('answers bad percent-encoding and over-long path ids in the job shape with the request id', async () => {
    const badUrl = await request(`http://127.0.0.1:${port}/v2/${endpointId}/status/%E0%A4%A`, {
      headers: bearer(secret),
    });
    const badUrlBody = await badUrl.body.json();
    expect(badUrl.statusCode).toBe(400);
    expect(badUrlBody).toEqual({
      error: 'Request URL is not validly percent-encoded',
      code: 'VALIDATION_FAILED',
      requestId: badUrl.headers['x-request-id'],
    });
    const longId = await request(`http://127.0.0.1:${port}/v2/${endpointId}/job-take/${'w'.repeat(101)}`, {
      headers: bearer(secret),
    });
    expect(longId.statusCode).toBe(404);
    expect(await longId.body.json()).toEqual({
      error: 'Not found',
      code: 'NOT_FOUND',
      requestId: longId.headers['x-request-id'],
    });
  });

  it('answers a URL over 16 KB with 431 in the job shape', async () => {
    const answer = await answerOf(
      sendRaw(port, `GET /v2/${endpointId}/status/${'j'.repeat(17 * 1024)} HTTP/1.1\r\nhost: x\r\n\r\n`),
    );
    expect(answer.status).toBe(431);
    expect(answer.body).toMatchObject({
      error: expect.any(String),
      code: 'HEADERS_TOO_LARGE',
      requestId: expect.any(String),
    });
  });

  it('answers a /run body trickled slower than BODY_TIMEOUT_MS with 408 and closes its connection', async () => {
    const declared = 1024 * 1024;
    const socket = sendRaw(
      port,
      `POST /v2/${endpointId}/run HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${secret}\r\ncontent-type: application/json\r\n` +
        `content-length: ${declared}\r\nx-request-id: trickle-1\r\n\r\n{"input":"`,
    );
    const { answer, sent } = await trickleUntilAnswered(socket, 'x');
    expect(sent).toBeLessThan(declared);
    expect(answer.status).toBe(408);
    expect(answer.body).toEqual({
      error: 'Request not received in time',
      code: 'REQUEST_TIMEOUT',
      requestId: 'trickle-1',
    });
  });
});
